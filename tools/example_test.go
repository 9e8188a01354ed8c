package tools_test

import (
	"context"
	"log"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/redact"
)

// toolSet is the smallest ToolSet: tools by name. toolcall's own is
// catalog.Catalog, which loads them from the tools directories.
type toolSet map[string]*tools.Tool

func (s toolSet) Lookup(name string) (*tools.Tool, bool) { t, ok := s[name]; return t, ok }
func (s toolSet) Names() []string                        { return slices.Sorted(maps.Keys(s)) }

// Calls checked as toolcall validate checks them, against a tool read
// from its sidecar: the first passes (written again, "validated"), the
// second has an argument of the wrong type and is answered with an
// observation that tells the model what to fix.
func ExampleValidate() {
	sidecar := `{"name": "get_weather", "description": "Weather for a city.",
		"input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}`
	weather, _, err := tools.ParseSidecar("get_weather.json", []byte(sidecar))
	if err != nil {
		log.Fatal(err)
	}
	calls := `{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"}}
{"type":"tool_call","id":"call_2","name":"get_weather","arguments":{"city":75001}}
`
	opts := tools.ValidateOptions{Redactor: redact.New(nil, nil)}
	if _, err := tools.Validate(context.Background(), strings.NewReader(calls), os.Stdout, toolSet{"get_weather": weather}, opts); err != nil {
		log.Fatal(err)
	}
	// Output:
	// {"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"},"validated":true}
	// {"type":"tool_call","id":"call_2","name":"get_weather","arguments":{"city":75001},"validated":false}
	// {"type":"tool_observation","id":"call_2","name":"get_weather","content":"The arguments for tool \"get_weather\" do not match its input schema:\n- /city: expected string, got integer 75001\nFix the arguments and call the tool again.","is_error":true,"status":"error","error":{"kind":"validation","message":"arguments of tool \"get_weather\" do not match its schema (1 error): /city: expected string, got integer 75001","details":[{"pointer":"/city","keyword":"type","expected":"\"string\"","got":"75001","message":"/city: expected string, got integer 75001"}]}}
}
