package schema

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var weatherTool = func() *testTool {
	return &testTool{Name: "get_weather", InputSchema: []byte(`{
		"type": "object",
		"properties": {
			"city": {"type": "string"},
			"units": {"enum": ["celsius", "fahrenheit"]},
			"days": {"type": "integer", "minimum": 1},
			"hourly": {"type": "boolean"},
			"note": {"type": ["string", "null"]},
			"where": {"type": "object", "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}}},
			"list": {"type": "array", "items": {"type": "integer"}}
		},
		"required": ["city"]
	}`)}
}

func TestCheckArgumentsNormalizes(t *testing.T) {
	cases := []struct {
		name, args, want string
		valid            bool
	}{
		{"object kept in the model's key order", `{"units":"celsius","city":"Paris"}`, `{"units":"celsius","city":"Paris"}`, true},
		{"whitespace removed", "{ \"city\" :\n \"Paris\" ,\t\"days\": 2 }", `{"city":"Paris","days":2}`, true},
		{"escapes decoded", `{"city":"Z\u00fcrich \ud83d\ude00 \/ \"q\""}`, `{"city":"Zürich 😀 / \"q\""}`, true},
		{"JSON string decoded once", `"{\"city\":\"Paris\"}"`, `{"city":"Paris"}`, true},
		{"string with spaces around JSON", `" {\"city\":\"Paris\"} "`, `{"city":"Paris"}`, true},
		{"numbers kept as written", `{"city":"x","where":{"lat":1.50,"lon":-2E+3}}`, `{"city":"x","where":{"lat":1.50,"lon":-2E+3}}`, true},
		{"null", `null`, `{}`, false},
		{"empty", ``, `{}`, false},
		{"blank", "  \n", `{}`, false},
		{"empty string", `""`, `{}`, false},
		{"null string", `"null"`, `{}`, false},
	}
	for _, c := range cases {
		got, err := weatherTool().CheckArguments([]byte(c.args), false)
		if err != nil {
			t.Fatal(err)
		}
		if string(got.Arguments) != c.want {
			t.Errorf("%s: arguments %s, want %s", c.name, got.Arguments, c.want)
		}
		if got.Validated != c.valid {
			t.Errorf("%s: validated %v, want %v (%+v)", c.name, got.Validated, c.valid, got.Errors)
		}
	}
}

func TestCheckArgumentsNotAnObject(t *testing.T) {
	for _, args := range []string{`[1]`, `42`, `"Paris"`, `true`, `"[1]"`, `{"city":`, `{"city":"x"} {}`, `{'city':'x'}`, `{"city":"x",}`, "{\"city\":\"a\x01\"}", `{"a":01}`} {
		got, err := weatherTool().CheckArguments([]byte(args), false)
		if err != nil {
			t.Fatal(err)
		}
		if got.Validated || len(got.Errors) != 1 || got.Errors[0].Pointer != "" || got.Errors[0].Keyword != "type" || got.Errors[0].Expected != `"object"` {
			t.Errorf("%s: %+v; want one type error at the root", args, got)
		}
		if got.Arguments != nil {
			t.Errorf("%s: arguments %s, want none", args, got.Arguments)
		}
	}
}

// TestCheckArgumentsInvalidUTF8 checks that what is validated and what is
// passed on agree when the text is not valid UTF-8: both get U+FFFD.
func TestCheckArgumentsInvalidUTF8(t *testing.T) {
	tool := &testTool{Name: "t", InputSchema: []byte(`{"properties":{"s":{"enum":["a\ufffdb","\ufffd"]}}}`)}
	for _, args := range []string{"{\"s\":\"a\xffb\"}", `{"s":"\ud800"}`} {
		got, err := tool.CheckArguments([]byte(args), false)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Validated || !json.Valid(got.Arguments) || !strings.Contains(string(got.Arguments), "\ufffd") {
			t.Errorf("%q: %+v, %s", args, got, got.Arguments)
		}
	}
}

func TestCheckArgumentsDuplicateKeys(t *testing.T) {
	for _, tool := range []*testTool{weatherTool(), {Name: "free"}} {
		got, err := tool.CheckArguments([]byte(`{"city":"Paris","where":{"lat":1,"lat":2}}`), false)
		if err != nil {
			t.Fatal(err)
		}
		want := []Error{{Pointer: "/where/lat", Keyword: "duplicate", Message: `/where/lat: property "lat" is given more than once; give each property once`}}
		if diff := cmp.Diff(want, got.Errors); diff != "" || got.Validated {
			t.Errorf("%s: (-want +got):\n%s", tool.Name, diff)
		}
	}
}

func TestCheckArgumentsNoSchema(t *testing.T) {
	tool := &testTool{Name: "free"}
	got, err := tool.CheckArguments([]byte(`"{ \"anything\" : [1, {\"b\":2}] }"`), true)
	if err != nil {
		t.Fatal(err)
	}
	want := Checked{Arguments: []byte(`{"anything":[1,{"b":2}]}`)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCheckArgumentsErrors(t *testing.T) {
	got, err := weatherTool().CheckArguments([]byte(`{"units":"kelvin","days":"3","list":[1,2,"x",4,5,6,7,8,9,10,"y"],"where":{"lat":"north"}}`), false)
	if err != nil {
		t.Fatal(err)
	}
	want := []Error{
		{Pointer: "/city", Keyword: "required", Expected: `["city"]`, Message: `/city: required property "city" is missing`},
		{Pointer: "/days", Keyword: "type", Expected: `"integer"`, Got: `"3"`, Message: `/days: expected integer, got string "3"; write 3 without quotes`},
		{Pointer: "/list/2", Keyword: "type", Expected: `"integer"`, Got: `"x"`, Message: `/list/2: expected integer, got string "x"`},
		{Pointer: "/list/10", Keyword: "type", Expected: `"integer"`, Got: `"y"`, Message: `/list/10: expected integer, got string "y"`},
		{Pointer: "/units", Keyword: "enum", Expected: `["celsius","fahrenheit"]`, Got: `"kelvin"`, Message: `/units: "kelvin" is not one of ["celsius","fahrenheit"]`},
		{Pointer: "/where/lat", Keyword: "type", Expected: `"number"`, Got: `"north"`, Message: `/where/lat: expected number, got string "north"`},
	}
	if diff := cmp.Diff(want, got.Errors); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got.Validated || len(got.Coerced) > 0 {
		t.Errorf("validated %v, coerced %v", got.Validated, got.Coerced)
	}
}

func TestCheckArgumentsTruncatesLongValues(t *testing.T) {
	long := strings.Repeat("é", 200)
	tool := &testTool{Name: "t", InputSchema: []byte(`{"properties":{"s":{"type":"integer"},"e":{"enum":["` + strings.Repeat("a", 600) + `"]}}}`)}
	got, err := tool.CheckArguments([]byte(`{"s":"`+long+`","e":"b"}`), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range got.Errors {
		if len(e.Got) > maxGotLen+len("…") || len(e.Expected) > maxExpectedLen+len("…") {
			t.Errorf("%s: got %d bytes, expected %d bytes", e.Pointer, len(e.Got), len(e.Expected))
		}
		if !strings.HasSuffix(e.Got, "…") && e.Pointer == "/s" || !strings.HasSuffix(e.Expected, "…") && e.Pointer == "/e" {
			t.Errorf("%s: cut not marked: %+v", e.Pointer, e)
		}
		if !utf8Valid(e.Got) || !utf8Valid(e.Message) {
			t.Errorf("%s: cut inside a character", e.Pointer)
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "?") == s }

func TestCheckArgumentsCoerces(t *testing.T) {
	args := `{"where":{"lon":"-3.5e2","lat":"0"},"city":"Paris","days":"7","hourly":"false","note":"null","list":["1","x"]}`
	got, err := weatherTool().CheckArguments([]byte(args), true)
	if err != nil {
		t.Fatal(err)
	}
	wantArgs := `{"where":{"lon":-3.5e2,"lat":0},"city":"Paris","days":7,"hourly":false,"note":"null","list":[1,"x"]}`
	if string(got.Arguments) != wantArgs {
		t.Errorf("arguments\n %s, want\n %s", got.Arguments, wantArgs)
	}
	wantCoerced := []Coercion{
		{Pointer: "/days", From: "7", To: []byte("7")},
		{Pointer: "/hourly", From: "false", To: []byte("false")},
		{Pointer: "/list/0", From: "1", To: []byte("1")},
		{Pointer: "/where/lat", From: "0", To: []byte("0")},
		{Pointer: "/where/lon", From: "-3.5e2", To: []byte("-3.5e2")},
	}
	if diff := cmp.Diff(wantCoerced, got.Coerced); diff != "" {
		t.Errorf("coerced (-want +got):\n%s", diff)
	}
	// "x" is still wrong, so the call fails; "null" stays a string, which
	// the schema allows.
	if got.Validated || len(got.Errors) != 1 || got.Errors[0].Pointer != "/list/1" {
		t.Errorf("validated %v, errors %+v", got.Validated, got.Errors)
	}
	// Without coerce nothing changes.
	plain, _ := weatherTool().CheckArguments([]byte(args), false)
	if len(plain.Coerced) > 0 || !bytes.Contains(plain.Arguments, []byte(`"days":"7"`)) {
		t.Errorf("coerced without being asked: %+v", plain)
	}
}

func TestCoerceStringIsExact(t *testing.T) {
	num := []string{"number"}
	integer := []string{"integer"}
	cases := []struct {
		s     string
		types []string
		want  string // "" when the string must stay a string
	}{
		{"42", integer, "42"},
		{"-3", integer, "-3"},
		{"-0", integer, "-0"},
		{"-3.5", num, "-3.5"},
		{"1e3", num, "1e3"},
		{"42", num, "42"},
		{"true", []string{"boolean"}, "true"},
		{"false", []string{"boolean", "null"}, "false"},
		{"null", []string{"null", "integer"}, "null"},
		{"3.5", integer, ""},
		{"1e3", integer, ""},
		{" 42", integer, ""},
		{"42 ", integer, ""},
		{"42abc", integer, ""},
		{"0x10", integer, ""},
		{"+1", num, ""},
		{"01", num, ""},
		{".5", num, ""},
		{"1.", num, ""},
		{"NaN", num, ""},
		{"Infinity", num, ""},
		{"1e99999", num, ""},
		{"True", []string{"boolean"}, ""},
		{"yes", []string{"boolean"}, ""},
		{"", []string{"null"}, ""},
		{"None", []string{"null"}, ""},
		{"42", []string{"boolean"}, ""},
		{"true", integer, ""},
		{"null", []string{"string"}, ""},
	}
	for _, c := range cases {
		to, ok := coerceString(c.s, c.types)
		if got := string(to); ok != (c.want != "") || got != c.want {
			t.Errorf("coerceString(%q, %v) = %q, %v; want %q", c.s, c.types, got, ok, c.want)
		}
	}
}

func TestCheckArgumentsLimits(t *testing.T) {
	deep := strings.Repeat("[", maxArgDepth+5) + strings.Repeat("]", maxArgDepth+5)
	tool := &testTool{Name: "t", InputSchema: []byte(`{"type":"object"}`)}
	for _, args := range []string{`{"a":` + deep + `}`, `{"a":1e1001}`, `{"a":` + strings.Repeat("9", maxNumberLength+1) + `}`} {
		got, err := tool.CheckArguments([]byte(args), false)
		if err != nil {
			t.Fatal(err)
		}
		if got.Validated || len(got.Errors) != 1 {
			t.Errorf("%.40s…: %+v; want one error", args, got.Errors)
		}
	}
	// Within the limits all is well.
	got, _ := tool.CheckArguments([]byte(`{"a":1e1000,"b":[[[[1]]]]}`), false)
	if !got.Validated {
		t.Errorf("%+v", got.Errors)
	}
}

func TestCheckArgumentsSchemaDoesNotCompile(t *testing.T) {
	tool := &testTool{Name: "t", File: "tools/t.json", InputSchema: []byte(`{"type":"objekt"}`)}
	got, err := tool.CheckArguments([]byte(`{}`), false)
	if err == nil || got.Validated {
		t.Fatalf("got %+v, %v; want an error", got, err)
	}
	if !strings.Contains(err.Error(), "tools/t.json") {
		t.Errorf("error %q does not name the file", err)
	}
}

// BenchmarkCheckArguments checks a BFCL-sized call against a schema that
// is already compiled: the hot path of validate.
func BenchmarkCheckArguments(b *testing.B) {
	tool := weatherTool()
	args := []byte(`{"city":"Paris","units":"celsius","days":3,"hourly":false}`)
	if got, err := tool.CheckArguments(args, false); err != nil || !got.Validated {
		b.Fatal(err, got.Errors)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := tool.CheckArguments(args, false); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// TestValidatorFailureFailsClosed checks that an error from inside the
// validator, rather than a failed check, still fails the call.
func TestValidatorFailureFailsClosed(t *testing.T) {
	sch, err := weatherTool().Compile()
	if err != nil {
		t.Fatal(err)
	}
	verr := validateSafely(sch.compiled, map[string]any{"city": struct{}{}})
	if verr == nil {
		t.Fatal("a value the validator cannot read passed")
	}
	b := errorBuilder{}
	b.add(verr)
	if len(b.out) != 1 || b.out[0].Keyword != "schema" || !strings.Contains(b.out[0].Message, "cannot be checked") {
		t.Errorf("%+v", b.out)
	}
}
