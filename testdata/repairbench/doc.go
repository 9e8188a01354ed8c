// Package repairbench compares toolcall's lenient JSON repair
// (parse.RepairJSON) with other repair libraries: with
// github.com/kaptinlin/jsonrepair on the same inputs in the same benchmark
// run, logging where their readings of broken JSON differ; and on the
// held-out corpus of defective documents in parse/testdata, scoring
// kaptinlin/jsonrepair live and the JavaScript jsonrepair from outcomes
// recorded as data (jsonrepair-js-3.15.0.jsonl, written by
// record-jsonrepair.mjs: in a scratch directory, npm install
// jsonrepair@3.15.0, copy the script there and run it with node on
// parse/testdata/repaircorpus.jsonl, writing its output here).
//
// It is a module of its own so that the main module does not depend on the
// library it is measured against. Run it from this directory:
//
//	go test -bench . -run 'Compare|Corpus' -v
package repairbench
