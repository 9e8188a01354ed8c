package parse_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/toolcall/toolcall/parse"
	"github.com/toolcall/toolcall/tools"
)

// A model's reply, as a server sends it, read as toolcall parse reads it:
// one JSON event per line, the call in it normalized whatever syntax the
// model wrote it in.
func ExampleStream() {
	reply := "Let me look that up.\n" +
		`<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>`
	if _, err := parse.Stream(context.Background(), strings.NewReader(reply), os.Stdout, parse.Options{}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// {"type":"text","content":"Let me look that up.\n"}
	// {"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"},"format":"hermes"}
}

// A Parser takes the reply in pieces as they arrive, here cut in the
// middle of a call, and hands over each event as values the moment it is
// complete; a reply in Mistral's syntax, with arguments that need repair.
func ExampleNewParser() {
	p, err := parse.NewParser(parse.Options{}, func(e *parse.Event) error {
		switch e.Type {
		case tools.TypeToolCall:
			fmt.Printf("call %s %s, format %s, repairs %v\n", e.Call.Name, e.Call.Arguments, e.Call.Format, e.Call.Repairs)
		default:
			fmt.Printf("%s %q\n", e.Type, e.Content)
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, piece := range []string{"Checking. [TOOL_CALLS][{\"name\": \"get_wea", "ther\", \"arguments\": {'city': 'Paris',}}]"} {
		if _, err := p.Write([]byte(piece)); err != nil {
			log.Fatal(err)
		}
	}
	if err := p.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// text "Checking. "
	// call get_weather {"city":"Paris"}, format mistral, repairs [single_quotes trailing_comma]
}
