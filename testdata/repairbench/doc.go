// Package repairbench compares toolcall's lenient JSON repair
// (parse.RepairJSON) with github.com/kaptinlin/jsonrepair on the same
// inputs in the same benchmark run, and logs where their readings of broken
// JSON differ.
//
// It is a module of its own so that the main module does not depend on the
// library it is measured against. Run it from this directory:
//
//	go test -bench . -run Compare -v
package repairbench
