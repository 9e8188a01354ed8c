//go:build unix

package run

import (
	"context"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/tools"
)

// turns is a Backend whose every reply is made from what the model was
// sent, so a turn can use a ref an earlier observation gave.
type turns []func(msgs []Message) string

func (ts *turns) Complete(ctx context.Context, req *Request, sink Sink) (Response, error) {
	if len(*ts) == 0 {
		return Response{}, &ProviderError{Message: "no more replies", Attempts: 1}
	}
	reply := (*ts)[0](req.Messages)
	*ts = (*ts)[1:]
	if _, err := sink.Text([]byte(reply)); err != nil {
		return Response{}, err
	}
	return Response{Model: "turns"}, nil
}

var refInText = regexp.MustCompile(`ref:[A-Za-z0-9_-]+`)

var (
	reportTool = shTool{"report", `{"description":"A long report.","input_schema":{"type":"object"}}`,
		`i=0; while [ $i -lt 2000 ]; do echo "line $i of the report"; i=$((i+1)); done`}
	noteTool = shTool{"note", `{"description":"Keep a short note.","input_schema":{"type":"object","properties":{"text":{"type":"string","maxLength":30}},"required":["text"]}}`,
		`echo kept`}
)

// In the loop as in exec, a ref is resolved before the schema is checked.
func TestLoopValidatesRefs(t *testing.T) {
	var ref string
	b := &turns{
		func([]Message) string {
			return `{"type":"tool_call","name":"report","arguments":{}}` + "\n"
		},
		func(msgs []Message) string {
			ref = refInText.FindString(msgs[len(msgs)-1].Content)
			return `{"type":"tool_call","name":"note","arguments":{"text":"` + ref + `"}}` + "\n"
		},
		func([]Message) string { return `{"type":"final_answer","content":"done"}` },
	}
	opts := Options{Catalog: shCatalog(t, reportTool, noteTool)}
	opts.Exec.MaxOutput = 1024
	opts.Exec.Scratch = t.TempDir()
	out, _ := runLoop(t, b, opts, "Note the report.")
	if ref == "" {
		t.Fatalf("no ref was given:\n%s", out)
	}
	var obs string
	for _, line := range strings.Split(out, "\n") {
		if gjson.Get(line, "name").Str == "note" {
			obs = line
		}
	}
	if gjson.Get(obs, "type").Str != "tool_observation" || gjson.Get(obs, "error.kind").Str != string(tools.KindValidation) ||
		!strings.Contains(obs, ref) || strings.Contains(out, `"content":"kept`) {
		t.Errorf("a ref whose text breaks the schema:\n%s", obs)
	}
}

// A tool replaced while the loop runs is not run again.
func TestLoopRefusesReplacedTool(t *testing.T) {
	c := shCatalog(t, addTool)
	add, _ := c.Lookup("add")
	b := &turns{
		func([]Message) string {
			// As a tool with write access could: new code under the
			// name of a tool already loaded.
			syscall.ForkLock.RLock()
			err := os.WriteFile(add.Command, []byte("#!/bin/sh\necho replaced code ran\n"), 0o755)
			syscall.ForkLock.RUnlock()
			if err != nil {
				t.Error(err)
			}
			return `{"type":"tool_call","name":"add","arguments":{"a":1,"b":2}}` + "\n"
		},
		func([]Message) string { return `{"type":"final_answer","content":"done"}` },
	}
	out, _ := runLoop(t, b, Options{Catalog: c}, "Add.")
	if strings.Contains(out, "replaced code ran") || !strings.Contains(out, "changed since it was loaded") || !strings.Contains(out, `"kind":"permission"`) {
		t.Errorf("a replaced tool ran:\n%s", out)
	}
}
