package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// bfclDir holds a subset of the BFCL v4 data, vendored with its license.
var bfclDir = filepath.Join("..", "testdata", "bfcl")

// bfclEntry is one BFCL test: the tool it offers and the accepted answer.
type bfclEntry struct {
	id     string
	tool   *Tool
	answer map[string][]json.RawMessage // parameter -> accepted values
}

// loadBFCLSimple reads BFCL_v4_simple_python.json and its answers, with
// the minimal dialect mapping (dict -> object, float -> number, tuple ->
// array, any -> no type) done here, so these tests do not depend on the
// sidecar loader. It returns nil when the data is absent.
func loadBFCLSimple(t testing.TB) []bfclEntry {
	t.Helper()
	f, err := os.Open(filepath.Join(bfclDir, "BFCL_v4_simple_python.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	answers := map[string]map[string][]json.RawMessage{}
	if data, err := os.ReadFile(filepath.Join(bfclDir, "possible_answer", "BFCL_v4_simple_python.json")); err == nil {
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var a struct {
				ID          string                                    `json:"id"`
				GroundTruth []map[string]map[string][]json.RawMessage `json:"ground_truth"`
			}
			if err := json.Unmarshal(line, &a); err != nil {
				t.Fatal(err)
			}
			for _, call := range a.GroundTruth {
				for _, params := range call {
					answers[a.ID] = params
				}
			}
		}
	}
	var out []bfclEntry
	seen := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e struct {
			ID       string `json:"id"`
			Function []struct {
				Name       string `json:"name"`
				Parameters any    `json:"parameters"`
			} `json:"function"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		for _, fn := range e.Function {
			name := fn.Name
			if seen[name]++; seen[name] > 1 {
				name = fmt.Sprintf("%s~%d", name, seen[name])
			}
			schema, err := json.Marshal(mapBFCLTypes(fn.Parameters))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, bfclEntry{id: e.ID, tool: &Tool{Name: name, Safe: true, InputSchema: schema}, answer: answers[e.ID]})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// mapBFCLTypes rewrites BFCL's Python type names to JSON Schema.
func mapBFCLTypes(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			if s, ok := sub.(string); ok && k == "type" {
				switch s {
				case "dict":
					v[k] = "object"
				case "float":
					v[k] = "number"
				case "tuple":
					v[k] = "array"
				case "any":
					delete(v, k)
				}
				continue
			}
			v[k] = mapBFCLTypes(sub)
		}
	case []any:
		for i := range v {
			v[i] = mapBFCLTypes(v[i])
		}
	}
	return v
}

// TestBFCLGroundTruth validates the first accepted value of each parameter
// of every simple_python answer. Each verdict must agree with the schema
// compiled and applied directly, and every failure must point at the
// parameter at fault.
func TestBFCLGroundTruth(t *testing.T) {
	entries := loadBFCLSimple(t)
	if entries == nil {
		t.Fatal("no BFCL data in", bfclDir)
	}
	passed, total := 0, 0
	for _, e := range entries {
		if e.answer == nil {
			continue
		}
		args := []byte{'{'}
		for name, values := range e.answer {
			if len(values) == 0 || string(values[0]) == `""` {
				continue // "" first means the parameter may be left out
			}
			if len(args) > 1 {
				args = append(args, ',')
			}
			args = jsonw.AppendString(args, name)
			args = append(args, ':')
			args = append(args, values[0]...)
		}
		args = append(args, '}')
		total++
		got, err := e.tool.CheckArguments(args, false)
		if err != nil {
			t.Errorf("%s: %v", e.id, err)
			continue
		}
		if direct := directlyValid(t, e.tool, got.Arguments); direct != got.Validated {
			t.Errorf("%s: validated %v, but the schema itself says %v for %s", e.id, got.Validated, direct, args)
		}
		if got.Validated {
			passed++
			continue
		}
		for _, se := range got.Errors {
			if se.Pointer == "" || se.Keyword == "" || !strings.HasPrefix(se.Message, se.Pointer+": ") {
				t.Errorf("%s: error without a pointer: %+v", e.id, se)
			}
		}
	}
	t.Logf("BFCL simple_python: %d of %d ground-truth calls validate", passed, total)
	if total == 0 || passed*100 < total*90 {
		t.Errorf("only %d of %d ground-truth calls validate; expected over 90%%", passed, total)
	}
}

// directlyValid applies the tool's compiled schema to args decoded by
// encoding/json: the reference the validate stage is checked against.
func directlyValid(t testing.TB, tool *Tool, args []byte) bool {
	t.Helper()
	s, err := tool.compile()
	if err != nil || s == nil {
		t.Fatalf("%s: %v", tool.Name, err)
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return false
	}
	if _, ok := v.(map[string]any); !ok {
		return false
	}
	return s.Validate(v) == nil
}

var (
	fuzzOnce  sync.Once
	fuzzTools []*Tool
	fuzzSet   *fakeSet
)

// fuzzCatalog is the hand-written tools of the golden tests that have a
// schema that compiles, plus the BFCL simple_python tools when present.
func fuzzCatalog(t testing.TB) ([]*Tool, *fakeSet) {
	fuzzOnce.Do(func() {
		for _, name := range testTools().Names() {
			tool, _ := testTools().Lookup(name)
			if tool.InputSchema == nil || tool.Unavailable != "" {
				continue
			}
			if _, err := tool.compile(); err != nil {
				continue
			}
			fuzzTools = append(fuzzTools, tool)
		}
		for _, e := range loadBFCLSimple(t) {
			fuzzTools = append(fuzzTools, e.tool)
		}
		fuzzSet = newFakeSet(fuzzTools, nil)
	})
	return fuzzTools, fuzzSet
}

// FuzzValidate sends random arguments to the tools of fuzzCatalog. It must
// never panic, every output line must be one JSON object, and a call must
// never come out validated unless its arguments pass the compiled schema
// when checked directly. With coerce off, arguments that pass directly
// must not be refused either (except for the documented limits).
func FuzzValidate(f *testing.F) {
	// A saved output for refs to name: what passes is what the tool gets,
	// the ref resolved.
	scratch := f.TempDir()
	tmp := filepath.Join(scratch, ".output-seed")
	if err := os.WriteFile(tmp, []byte("Paris"), 0o600); err != nil {
		f.Fatal(err)
	}
	ref, err := finishScratch(scratch, tmp, "s", nil, 0)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		`{"city":"` + ref + `"}`, `{"number":"` + ref + `"}`, `"{\"city\":\"` + ref + `\"}"`,
		`{}`, `null`, ``, `[1]`, `"x"`, `{"a":`,
		`{"city":"Paris","units":"celsius","days":3}`,
		`{"city":"Paris","city":"Rome"}`,
		`"{\"city\":\"Paris\"}"`,
		`{"number":"5"}`, `{"number":5}`, `{"number":1e999}`,
		`{"base":10,"height":5,"unit":"units"}`,
		`{"query":"x","options":{"max_results":"3","include_hidden":"true"}}`,
		`{"time":"07:00","repeat":["mon"],"label":null,"sound":{"tone":"3"}}`,
		`{"from":{"lat":"1","lon":2},"to":{"lat":3,"lon":4},"a/b~c":"true"}`,
		`{"s":"\ud800\u00e9","t":"` + "\xff" + `"}`,
		`{"a":{"b":[1,2,{"c":[[[]]]}]}}`,
		// The memory findings of issue 31: one ref named again and again,
		// and many wrong values at once (errors shown capped, and counted).
		`{"city":["` + strings.Repeat(ref+`","`, 30) + ref + `"]}`,
		`{"time":1,"repeat":2,"label":3,"sound":4,"days":"x","units":5,"city":6,"number":"y","base":[],"height":{},"unit":7,"query":8,"options":9}`,
	} {
		for which := range 6 {
			f.Add([]byte(seed), uint16(which*37), which%2 == 0)
		}
	}
	f.Fuzz(func(t *testing.T, args []byte, which uint16, coerce bool) {
		ts, set := fuzzCatalog(t)
		tool := ts[int(which)%len(ts)]
		line := []byte(`{"type":"tool_call","id":"f","name":`)
		line = jsonw.AppendString(line, tool.Name)
		line = append(line, `,"arguments":`...)
		if json.Valid(args) && !bytes.ContainsAny(args, "\r\n") {
			line = append(line, args...)
		} else {
			line = jsonw.AppendBytes(line, args)
		}
		line = append(line, '}', '\n')

		var out bytes.Buffer
		stats, err := Validate(context.Background(), bytes.NewReader(line), &out, set,
			ValidateOptions{Policy: Policy{AllowUnsafe: true}, Coerce: coerce, Scratch: scratch})
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
		if stats.Calls != 1 || len(lines) != 1+stats.Failed {
			t.Fatalf("want one call out, and its refusal when it failed, got %+v:\n%s", stats, out.Bytes())
		}
		if stats.Failed == 1 {
			// The call as the model wrote it, marked refused, then why.
			e, _ := DecodeCallEvent(lines[0])
			if !json.Valid(lines[0]) || !e.Refused() || e.ID != "f" || e.Name != tool.Name {
				t.Fatalf("a refused call's line is not the call marked refused: %s", lines[0])
			}
		}
		o := lines[len(lines)-1]
		if !json.Valid(o) || !gjson.ValidBytes(o) {
			t.Fatalf("output is not valid JSON: %s", o)
		}
		ev := gjson.ParseBytes(o)
		switch ev.Get("type").Str {
		case TypeToolCall:
			if !ev.Get("validated").Bool() {
				t.Fatalf("a call with a schema came out unvalidated: %s", o)
			}
			a, _, err := resolveRefs([]byte(ev.Get("arguments").Raw), scratch, 0)
			if err != nil {
				t.Fatalf("a passed call holds a ref that does not resolve: %v\n%s", err, o)
			}
			if hasDuplicateKeys(a) {
				t.Fatalf("validated arguments repeat a property: %s", a)
			}
			if !directlyValid(t, tool, a) {
				t.Fatalf("passed arguments the schema rejects: %s (input %q)", a, args)
			}
		case TypeToolObservation:
			kind := ev.Get("error.kind").Str
			if !ev.Get("is_error").Bool() || kind != string(KindValidation) {
				t.Fatalf("unexpected observation: %s", o)
			}
			if !coerce && json.Valid(args) && !hasDuplicateKeys(args) && isObject(args) && !mayHoldRef(args) && directlyValid(t, tool, args) {
				for _, d := range ev.Get("error.details").Array() {
					if d.Get("keyword").Str != "number" {
						t.Fatalf("refused arguments the schema accepts: %s\n%s", args, o)
					}
				}
			}
		default:
			t.Fatalf("unexpected event: %s", o)
		}
	})
}

func isObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{'
}

// keyFrame is one open object or array while hasDuplicateKeys reads.
type keyFrame struct {
	keys      map[string]bool // nil for an array
	expectKey bool
}

// hasDuplicateKeys reports whether some object in the JSON text b names a
// property twice, using encoding/json's tokenizer as an independent reader.
func hasDuplicateKeys(b []byte) bool {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var stack []*keyFrame
	valueDone := func() {
		if len(stack) > 0 && stack[len(stack)-1].keys != nil {
			stack[len(stack)-1].expectKey = true
		}
	}
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if n := len(stack); n > 0 && stack[n-1].keys != nil && stack[n-1].expectKey {
			if k, ok := tok.(string); ok {
				if stack[n-1].keys[k] {
					return true
				}
				stack[n-1].keys[k] = true
				stack[n-1].expectKey = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &keyFrame{keys: map[string]bool{}, expectKey: true})
		case json.Delim('['):
			stack = append(stack, &keyFrame{})
		case json.Delim(']'), json.Delim('}'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}

func TestHasDuplicateKeys(t *testing.T) {
	for b, want := range map[string]bool{
		`{"a":1,"b":2}`:               false,
		`{"a":1,"a":2}`:               true,
		`{"a":{"b":1},"b":{"b":2}}`:   false,
		`[{"a":1},{"a":1}]`:           false,
		`{"x":[{"a":1,"a":1}]}`:       true,
		`{"a":[1,"a"],"b":"a","a":0}`: true,
	} {
		if got := hasDuplicateKeys([]byte(b)); got != want {
			t.Errorf("hasDuplicateKeys(%s) = %v", b, got)
		}
	}
}
