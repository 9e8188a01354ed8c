package eval

import (
	"encoding/json"
	"testing"
)

// oneCase is a simple case of category cat with one function of the
// given parameters (name: BFCL type) and the expected call's accepted
// values, both JSON.
func oneCase(t *testing.T, cat, params, required, answer string) *Case {
	t.Helper()
	fn := `{"name":"f","description":"d","parameters":{"type":"dict","properties":` + params + `,"required":` + required + `}}`
	line := `{"id":"` + cat + `_0","question":[[{"role":"user","content":"q"}]],"function":[` + fn + `],"ground_truth":[{"f":` + answer + `}]}`
	var bc bfclCase
	if err := json.Unmarshal([]byte(line), &bc); err != nil {
		t.Fatal(err)
	}
	c, err := bc.toCase()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Each rule of docs/eval.md, on a call written for it: the verdict BFCL's
// checker gives that call.
func TestRules(t *testing.T) {
	for _, tc := range []struct {
		rule                        string
		cat, params, required, want string
		args                        string
		why                         Why // WhyRight: scored right
	}{
		// Strings are compared standardized: case, spaces and ,./-_*^ aside.
		{"string standardized", "simple_python", `{"d":{"type":"string"}}`, `["d"]`, `{"d":["April 1, 2024"]}`, `{"d":"april 1 2024"}`, WhyRight},
		{"string quotes", "simple_python", `{"d":{"type":"string"}}`, `["d"]`, `{"d":["say \"hi\""]}`, `{"d":"say 'hi'"}`, WhyRight},
		{"string other", "simple_python", `{"d":{"type":"string"}}`, `["d"]`, `{"d":["Paris"]}`, `{"d":"Rome"}`, WhyValue},
		// Python takes an int for a float, not a float for an int.
		{"int for float", "simple_python", `{"x":{"type":"float"}}`, `["x"]`, `{"x":[5.0]}`, `{"x":5}`, WhyRight},
		{"float for int", "simple_python", `{"n":{"type":"integer"}}`, `["n"]`, `{"n":[5]}`, `{"n":5.0}`, WhyWrongType},
		{"bool for int", "simple_python", `{"n":{"type":"integer"}}`, `["n"]`, `{"n":[1]}`, `{"n":true}`, WhyWrongType},
		{"number equal", "simple_python", `{"x":{"type":"float"}}`, `["x"]`, `{"x":[0.5]}`, `{"x":0.50}`, WhyRight},
		// "" among the accepted values: the argument may be left out; else
		// it must be there even when the function says it is optional.
		{"optional left out", "simple_python", `{"a":{"type":"integer"},"b":{"type":"string"}}`, `["a"]`, `{"a":[1],"b":["x",""]}`, `{"a":1}`, WhyRight},
		{"answer needs it", "simple_python", `{"a":{"type":"integer"},"b":{"type":"string"}}`, `["a"]`, `{"a":[1],"b":["x"]}`, `{"a":1}`, WhyMissingArgument},
		{"required", "simple_python", `{"a":{"type":"integer"}}`, `["a"]`, `{"a":[1]}`, `{}`, WhyMissingArgument},
		{"not in the answer", "simple_python", `{"a":{"type":"integer"},"b":{"type":"integer"}}`, `["a"]`, `{"a":[1]}`, `{"a":1,"b":2}`, WhyUnknownArgument},
		{"not a parameter", "simple_python", `{"a":{"type":"integer"}}`, `["a"]`, `{"a":[1]}`, `{"a":1,"z":2}`, WhyUnknownArgument},
		// Lists: the order counts, strings in them standardized, items typed.
		{"list", "simple_python", `{"l":{"type":"array","items":{"type":"string"}}}`, `["l"]`, `{"l":[["New York","LA"]]}`, `{"l":["new york","la"]}`, WhyRight},
		{"list order", "simple_python", `{"l":{"type":"array","items":{"type":"string"}}}`, `["l"]`, `{"l":[["a","b"]]}`, `{"l":["b","a"]}`, WhyValue},
		{"list items typed", "simple_python", `{"l":{"type":"array","items":{"type":"integer"}}}`, `["l"]`, `{"l":[[1,2]]}`, `{"l":["1","2"]}`, WhyWrongType},
		{"tuple", "simple_python", `{"p":{"type":"tuple","items":{"type":"float"}}}`, `["p"]`, `{"p":[[1.5,2.5]]}`, `{"p":[1.5,2.5]}`, WhyRight},
		// Dicts: each key among its accepted values, "" marking optional keys.
		{"dict", "simple_python", `{"o":{"type":"dict"}}`, `["o"]`, `{"o":[{"k":["v"],"n":[1,""]}]}`, `{"o":{"k":"V"}}`, WhyRight},
		{"dict key", "simple_python", `{"o":{"type":"dict"}}`, `["o"]`, `{"o":[{"k":["v"]}]}`, `{"o":{"k":"v","x":1}}`, WhyUnknownArgument},
		{"dict missing key", "simple_python", `{"o":{"type":"dict"}}`, `["o"]`, `{"o":[{"k":["v"],"n":[1]}]}`, `{"o":{"k":"v"}}`, WhyMissingArgument},
		{"list of dicts", "simple_python", `{"l":{"type":"array","items":{"type":"dict"}}}`, `["l"]`, `{"l":[[{"a":[1]},{"a":[2]}]]}`, `{"l":[{"a":1},{"a":2}]}`, WhyRight},
		{"list of dicts count", "simple_python", `{"l":{"type":"array","items":{"type":"dict"}}}`, `["l"]`, `{"l":[[{"a":[1]},{"a":[2]}]]}`, `{"l":[{"a":1}]}`, WhyValue},
		// A variable: the answer gives a name (a string) where the parameter
		// wants a dict, and a string is compared as it is.
		{"variable", "simple_python", `{"o":{"type":"dict"}}`, `["o"]`, `{"o":["config"]}`, `{"o":"config"}`, WhyRight},
		{"any is a string", "simple_python", `{"v":{"type":"any"}}`, `["v"]`, `{"v":["x"]}`, `{"v":3}`, WhyWrongType},
		// Java and JavaScript: a value written as the language's literal in
		// a string is read as BFCL reads it; a typed JSON value as it is.
		{"java boolean", "simple_java", `{"b":{"type":"boolean"}}`, `["b"]`, `{"b":[true]}`, `{"b":"true"}`, WhyRight},
		{"java boolean typed", "simple_java", `{"b":{"type":"boolean"}}`, `["b"]`, `{"b":[true]}`, `{"b":true}`, WhyRight},
		{"java long", "simple_java", `{"n":{"type":"long"}}`, `["n"]`, `{"n":[123]}`, `{"n":"123L"}`, WhyRight},
		{"java long without L", "simple_java", `{"n":{"type":"long"}}`, `["n"]`, `{"n":[123]}`, `{"n":"123"}`, WhyWrongType},
		{"java float", "simple_java", `{"x":{"type":"float"}}`, `["x"]`, `{"x":[3.5]}`, `{"x":"3.5f"}`, WhyRight},
		{"java ArrayList", "simple_java", `{"l":{"type":"ArrayList","items":{"type":"String"}}}`, `["l"]`, `{"l":[["a","b"]]}`, `{"l":"new ArrayList<>(Arrays.asList(\"a\", \"b\"))"}`, WhyRight},
		{"java array", "simple_java", `{"l":{"type":"Array","items":{"type":"integer"}}}`, `["l"]`, `{"l":[[1,2,3]]}`, `{"l":"new int[]{1, 2, 3}"}`, WhyRight},
		{"java HashMap", "simple_java", `{"m":{"type":"HashMap"}}`, `["m"]`, `{"m":[{"limit":[50],"s":["public"]}]}`, `{"m":"new HashMap<String, Object>() {{ put(\"limit\", 50); put(\"s\", \"public\"); }}"}`, WhyRight},
		{"java HashMap typed", "simple_java", `{"m":{"type":"HashMap"}}`, `["m"]`, `{"m":[{"limit":[50]}]}`, `{"m":{"limit":50}}`, WhyRight},
		{"java any", "simple_java", `{"c":{"type":"any"}}`, `["c"]`, `{"c":["mapController"]}`, `{"c":"mapController"}`, WhyRight},
		{"js String quoted", "simple_javascript", `{"s":{"type":"String"}}`, `["s"]`, `{"s":["utf-8"]}`, `{"s":"'utf-8'"}`, WhyRight},
		{"js array", "simple_javascript", `{"a":{"type":"array","items":{"type":"String"}}}`, `["a"]`, `{"a":[["completed","failed"]]}`, `{"a":"['completed', 'failed']"}`, WhyRight},
		{"js array typed", "simple_javascript", `{"a":{"type":"array","items":{"type":"String"}}}`, `["a"]`, `{"a":[["completed","failed"]]}`, `{"a":["completed","failed"]}`, WhyRight},
		{"js Bigint", "simple_javascript", `{"n":{"type":"Bigint"}}`, `["n"]`, `{"n":[12]}`, `{"n":"12n"}`, WhyRight},
		{"js dict", "simple_javascript", `{"d":{"type":"dict"}}`, `["d"]`, `{"d":[{"key":["value"]}]}`, `{"d":"{'key': 'value'}"}`, WhyRight},
		{"js Boolean", "simple_javascript", `{"b":{"type":"Boolean"}}`, `["b"]`, `{"b":[false]}`, `{"b":"yes"}`, WhyWrongType},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			c := oneCase(t, tc.cat, tc.params, tc.required, tc.want)
			v := Check(c, []Call{{Name: "f", Arguments: json.RawMessage(tc.args)}}, 0)
			if v.Why != tc.why || v.Right != (tc.why == WhyRight) {
				t.Errorf("%s with %s: scored %v/%q (%s), want %q", tc.want, tc.args, v.Right, v.Why, v.Reason, tc.why)
			}
		})
	}
}

// The dots a name loses where the API forbids them still name the
// function (BFCL's underscore_to_dot).
func TestDottedNames(t *testing.T) {
	fn := `{"name":"math.sum","parameters":{"type":"dict","properties":{"n":{"type":"integer"}},"required":["n"]}}`
	var bc bfclCase
	if err := json.Unmarshal([]byte(`{"id":"simple_python_9","question":[[{"role":"user","content":"q"}]],"function":[`+fn+`],"ground_truth":[{"math.sum":{"n":[1]}}]}`), &bc); err != nil {
		t.Fatal(err)
	}
	c, err := bc.toCase()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"math.sum", "math_sum"} {
		if v := Check(c, []Call{{Name: name, Arguments: json.RawMessage(`{"n":1}`)}}, 0); !v.Right {
			t.Errorf("%s: %+v", name, v)
		}
	}
	if v := Check(c, []Call{{Name: "mathsum", Arguments: json.RawMessage(`{"n":1}`)}}, 0); v.Why != WhyWrongFunction {
		t.Errorf("mathsum: %+v", v)
	}
}

// FuzzCheck scores random arguments against every BFCL case's first
// function, as literal strings in every language: never a panic, and a
// miss always says why.
func FuzzCheck(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"a":1}`, `{"x":"new ArrayList<>(Arrays.asList(\"a\", 1))"}`,
		`{"m":"new HashMap<String, Object>() {{ put(\"k\", [1]); }}"}`,
		`{"a":"[[1, 2], [3]]"}`, `{"d":"{'k': {'n': [1, 'x']}}"}`, `{"n":"-12n"}`,
		`{"l":[1,"2",[3.5e3]],"o":{"k":null}}`,
	} {
		f.Add([]byte(seed), uint8(0))
	}
	cases, err := Load("../../testdata/bfcl")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args []byte, which uint8) {
		c := cases[int(which)%len(cases)]
		for _, lang := range []Language{Python, Java, JavaScript} {
			cc := *c
			cc.Language = lang
			name := cc.Functions[0].Name
			v := Check(&cc, []Call{{Name: name, Arguments: args}}, 0)
			if !v.Right && (v.Why == "" || v.Reason == "") {
				t.Fatalf("%s (%s): a miss without a reason: %+v", c.ID, lang, v)
			}
			for _, p := range cc.Functions[0].Params {
				lang.convert(string(args), p.Type, p.ItemsType)
			}
		}
	})
}
