package schema_test

import (
	"fmt"
	"log"

	"github.com/toolcall/toolcall/tools/schema"
)

// A tool's input schema is compiled once and checks each call: with
// coerce, a number written as a string passes as the number; a misspelt
// property is named, with the one meant.
func Example() {
	s, err := schema.Compile("get_weather", []byte(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}`))
	if err != nil {
		log.Fatal(err)
	}
	c := s.Check([]byte(`{"city":"Paris","days":"3"}`), true, nil)
	fmt.Println(c.Validated, string(c.Arguments))

	c = s.Check([]byte(`{"cty":"Paris"}`), false, nil)
	for _, e := range c.Errors {
		fmt.Println(e.Message)
	}
	// Output:
	// true {"city":"Paris","days":3}
	// /city: required property "city" is missing (the arguments have "cty" instead; write the name exactly as the schema does)
}
