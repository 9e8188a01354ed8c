//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// TestRunEqualsPipelineAliases is the proof for a sidecar's aliases: run
// normalizes a call as parse | exec does, with the same "normalized"
// record and the same refusal of an alias given with its property, and
// validate's line for the call is run's.
func TestRunEqualsPipelineAliases(t *testing.T) {
	dir := t.TempDir()
	toolsDir := filepath.Join(dir, "tools")
	if err := os.Mkdir(toolsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(toolsDir, "search"), "#!/bin/sh\ncat\n", 0o755)
	writeFile(t, filepath.Join(toolsDir, "search.json"), `{"description": "Search the notes.", "safe": true,
		"input_schema": {"type": "object", "additionalProperties": false, "required": ["query"], "properties": {
			"query": {"type": "string"}, "order": {"enum": ["newest", "oldest"]},
			"filter": {"type": "object", "properties": {"tag": {"type": "string"}}, "additionalProperties": false}}},
		"aliases": {"q": "query", "/filter/t": "tag"},
		"value_aliases": {"/order": {"new": "newest", "old": "oldest"}}}`, 0o644)
	turn := `{"type":"tool_call","name":"search","arguments":{"q":"milk","order":"new","filter":{"t":"shop"}}}` + "\n" +
		`{"type":"tool_call","name":"search","arguments":{"q":"eggs","query":"bread"}}` + "\n"
	turnFile := filepath.Join(dir, "turn.txt")
	writeFile(t, turnFile, turn, 0o644)
	model := filepath.Join(dir, "model")
	writeFile(t, model, "#!/bin/sh\nif grep -q 'milk'; then echo '{\"type\":\"final_answer\",\"content\":\"Found it.\"}'; else cat \"$1\"; fi\n", 0o755)

	fromRun, _ := runCalls(t, "run", "--tools", toolsDir, "--model-cmd", model+" "+turnFile, "Find it.")
	fromPipe := pipeline(t, []string{"parse", "--tools", toolsDir, turnFile}, toolsDir)
	if diff := cmp.Diff(fromPipe, fromRun); diff != "" {
		t.Errorf("run and parse | exec differ (-pipeline +run):\n%s", diff)
	}
	want := `{"type":"tool_call","id":"call_1","name":"search","arguments":{"query":"milk","order":"newest","filter":{"tag":"shop"}},"format":"jsonl","validated":true,"normalized":[{"from":"/q","to":"/query"},{"pointer":"/order","from":"new","to":"newest"},{"from":"/filter/t","to":"/filter/tag"}]}`
	if len(fromRun) < 4 || fromRun[0] != want || gjson.Get(fromRun[3], "error.details.0.keyword").Str != "duplicate" {
		t.Errorf("run's events:\n%s\nwant the call normalized:\n%s\nand the second refused", strings.Join(fromRun, "\n"), want)
	}

	// validate writes the call as run does.
	var events, validated, stderr bytes.Buffer
	if code := execute(context.Background(), []string{"parse", "--tools", toolsDir, turnFile}, strings.NewReader(""), &events, &stderr); code != 0 {
		t.Fatalf("parse exited %d: %s", code, stderr.String())
	}
	if code := execute(context.Background(), []string{"validate", "--tools", toolsDir}, &events, &validated, &stderr); code != 0 {
		t.Fatalf("validate exited %d: %s", code, stderr.String())
	}
	if first, _, _ := strings.Cut(validated.String(), "\n"); first != want {
		t.Errorf("validate's call:\n%s\nrun's:\n%s", first, want)
	}
}
