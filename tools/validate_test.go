package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/editdist"
	"github.com/toolcall/toolcall/internal/golden"
)

// fakeSet is a ToolSet made of Tool literals, with aliases like the
// provider-safe names a catalog gives.
type fakeSet struct {
	byName map[string]*Tool
	alias  map[string]string
	names  []string
}

func newFakeSet(ts []*Tool, alias map[string]string) *fakeSet {
	s := &fakeSet{byName: map[string]*Tool{}, alias: alias}
	for _, t := range ts {
		s.byName[t.Name] = t
		s.names = append(s.names, t.Name)
	}
	slices.Sort(s.names)
	return s
}

func (s *fakeSet) Lookup(name string) (*Tool, bool) {
	if t, ok := s.byName[name]; ok {
		return t, true
	}
	t, ok := s.byName[s.alias[name]]
	return t, ok
}

func (s *fakeSet) Names() []string { return s.names }

// testTools is the catalog the golden cases run against. It is built
// afresh for each test, since tools cache their compiled schema.
func testTools() *fakeSet {
	return newFakeSet([]*Tool{
		{Name: "get_weather", Safe: true, Tags: []string{"weather", "network"}, File: "tools/get_weather.json",
			InputSchema: []byte(`{
				"type": "object",
				"properties": {
					"city": {"type": "string", "minLength": 1, "maxLength": 40},
					"units": {"enum": ["celsius", "fahrenheit"]},
					"days": {"type": "integer", "minimum": 1, "maximum": 14}
				},
				"required": ["city"],
				"additionalProperties": false
			}`)},
		{Name: "search_files", Safe: true, File: "tools/search_files.json",
			InputSchema: []byte(`{
				"type": "object",
				"properties": {
					"query": {"type": "string", "pattern": "^[^*]+$"},
					"options": {
						"type": "object",
						"properties": {
							"max_results": {"type": "integer", "exclusiveMinimum": 0},
							"include_hidden": {"type": "boolean"},
							"exts": {"type": "array", "items": {"type": "string", "pattern": "^\\."}, "uniqueItems": true, "maxItems": 3, "minItems": 1},
							"ratio": {"type": "number", "multipleOf": 0.25, "exclusiveMaximum": 1},
							"mode": {"const": "fast"}
						},
						"required": ["max_results"]
					},
					"since": {"type": ["string", "null"]},
					"tags": {"type": "object", "minProperties": 1, "maxProperties": 2, "propertyNames": {"pattern": "^[a-z]+$"}}
				},
				"required": ["query"]
			}`)},
		{Name: "set_alarm", Safe: true, File: "tools/set_alarm.json",
			InputSchema: []byte(`{
				"type": "object",
				"properties": {
					"time": {"anyOf": [
						{"type": "string", "pattern": "^[0-9]{2}:[0-9]{2}$"},
						{"type": "integer", "minimum": 0, "maximum": 1439}
					]},
					"repeat": {"oneOf": [
						{"type": "boolean"},
						{"type": "array", "items": {"enum": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]}}
					]},
					"label": {"anyOf": [{"type": "string"}, {"type": "null"}]},
					"snooze": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 0}]},
					"sound": {"anyOf": [
						{"type": "object", "properties": {"file": {"type": "string"}}, "required": ["file"]},
						{"type": "object", "properties": {"tone": {"type": "integer"}}, "required": ["tone"]}
					]},
					"extra": {"not": {"type": "string"}}
				},
				"required": ["time"],
				"unevaluatedProperties": false
			}`)},
		{Name: "route", Safe: true, File: "tools/route.json",
			InputSchema: []byte(`{
				"$defs": {"point": {"type": "object", "properties": {"lat": {"type": "number", "minimum": -90, "maximum": 90}, "lon": {"type": "number"}}, "required": ["lat", "lon"]}},
				"type": "object",
				"properties": {
					"from": {"$ref": "#/$defs/point"},
					"to": {"$ref": "#/$defs/point"},
					"via": {"type": "array", "items": {"$ref": "#/$defs/point"}, "contains": {"type": "object", "required": ["stop"]}},
					"a/b~c": {"type": "boolean"},
					"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false},
					"card": {"type": "object", "properties": {"number": {"type": "string"}, "cvv": false}, "dependentRequired": {"number": ["expiry"]}}
				},
				"required": ["from", "to"]
			}`)},
		{Name: "legacy", Safe: true, File: "tools/legacy.json",
			InputSchema: []byte(`{
				"$schema": "http://json-schema.org/draft-07/schema#",
				"type": "object",
				"properties": {
					"point": {"type": "array", "items": [{"type": "number"}, {"type": "number"}], "additionalItems": false},
					"user": {"type": "string"},
					"password": {"type": "string"},
					"exp": {"type": "number", "exclusiveMinimum": 0}
				},
				"dependencies": {"user": ["password"]}
			}`)},
		{Name: "delete_file", Safe: false, File: "tools/delete_file.json",
			InputSchema: []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		{Name: "math.factorial", Safe: true, File: "tools/math.factorial.json",
			InputSchema: []byte(`{"type":"object","properties":{"number":{"type":"integer","minimum":0}},"required":["number"]}`)},
		{Name: "list_dir", Safe: true, AllowNoSchema: true, NoSchemaMode: NoSchemaReadOnly, File: "tools/list_dir.json"},
		{Name: "run_anything", Safe: true, AllowNoSchema: true, NoSchemaMode: NoSchemaFull, File: "tools/run_anything.json"},
		{Name: "shell", Safe: true, AllowNoSchema: true, NoSchemaMode: NoSchemaHumanApproval, File: "tools/shell.json"},
		{Name: "schemaless", Safe: true, File: "tools/schemaless.json"},
		{Name: "broken", Safe: true, File: "tools/broken.json",
			InputSchema: []byte(`{"type": "objekt"}`)},
		{Name: "fetcher", Safe: true, File: "tools/fetcher.json",
			InputSchema: []byte(`{"type": "object", "properties": {"spec": {"$ref": "https://example.com/spec.json"}}}`)},
		{Name: "gpu_render", Safe: true, File: "tools/gpu_render.json",
			InputSchema: []byte(`{"type":"object"}`),
			Unavailable: "it requires nvidia-smi, which is not on PATH"},
	}, map[string]string{"math_factorial": "math.factorial"})
}

// validateCases are the golden cases in testdata/validate: <name>.jsonl is
// the input, <name>.golden the output, followed by the warnings as lines
// starting with "# warning". Every input file must be listed here.
var validateCases = []struct {
	name string
	opts ValidateOptions
}{
	{"passthrough", ValidateOptions{}},
	{"bad_lines", ValidateOptions{}},
	{"unknown_tool", ValidateOptions{}},
	{"unavailable", ValidateOptions{}},
	{"policy_deny", ValidateOptions{Policy: Policy{Deny: []string{"get_*"}}}},
	{"policy_allow", ValidateOptions{Policy: Policy{Allow: []string{"route", "math.*"}}}},
	{"policy_local_only", ValidateOptions{Policy: Policy{LocalOnly: true}}},
	{"policy_consent", ValidateOptions{}},
	{"policy_approved", ValidateOptions{Policy: Policy{Approved: []string{"shell", "delete_file"}}}},
	{"validation", ValidateOptions{}},
	{"alternatives", ValidateOptions{}},
	{"refs_and_drafts", ValidateOptions{}},
	{"coerce", ValidateOptions{Coerce: true}},
	{"no_coerce", ValidateOptions{}},
	{"arguments_forms", ValidateOptions{}},
	{"no_schema", ValidateOptions{}},
	{"aliases", ValidateOptions{}},
	{"bad_schemas", ValidateOptions{}},
	{"ids_and_fields", ValidateOptions{}},
}

func TestValidateGolden(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "validate", "*.jsonl"))
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".jsonl")
		if !slices.ContainsFunc(validateCases, func(c struct {
			name string
			opts ValidateOptions
		}) bool {
			return c.name == name
		}) {
			t.Errorf("%s has no entry in validateCases", in)
		}
	}
	for _, c := range validateCases {
		t.Run(c.name, func(t *testing.T) {
			in := filepath.Join("testdata", "validate", c.name+".jsonl")
			input, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := runValidate(t, input, c.opts)
			golden.Check(t, filepath.Join("testdata", "validate", c.name+".golden"), []byte(got))
		})
	}
}

// runValidate runs Validate over input and returns the output followed by
// the warnings, checking on the way that every Write holds whole lines,
// each a JSON object.
func runValidate(t *testing.T, input []byte, opts ValidateOptions) string {
	t.Helper()
	var warnings []string
	opts.Warn = func(line int, err error) {
		warnings = append(warnings, fmt.Sprintf("# warning: line %d: %v", line, err))
	}
	var w lineWriter
	if _, err := Validate(context.Background(), bytes.NewReader(input), &w, testTools(), opts); err != nil {
		t.Fatal(err)
	}
	for i, l := range w.writes {
		if !bytes.HasSuffix(l, []byte("\n")) {
			t.Errorf("write %d does not end a line: %q", i, l)
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(l, []byte("\n")), []byte("\n")) {
			if !json.Valid(line) || line[0] != '{' {
				t.Errorf("write %d holds a line that is not a JSON object: %q", i, line)
			}
		}
	}
	var out strings.Builder
	for _, l := range w.writes {
		out.Write(l)
	}
	for _, wl := range warnings {
		out.WriteString(wl + "\n")
	}
	return out.String()
}

// lineWriter records each Write separately.
type lineWriter struct{ writes [][]byte }

func (w *lineWriter) Write(p []byte) (int, error) {
	w.writes = append(w.writes, bytes.Clone(p))
	return len(p), nil
}

func TestValidatePassesOtherLinesByteForByte(t *testing.T) {
	in := "{\"type\":\"text\",  \"content\":\"a\\u00e9 é\",\"z\":1,\"a\":2}\r\n\n   \n{ \"type\" : \"final_answer\" , \"content\": \"x\" }"
	var out bytes.Buffer
	stats, err := Validate(context.Background(), strings.NewReader(in), &out, testTools(), ValidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"type\":\"text\",  \"content\":\"a\\u00e9 é\",\"z\":1,\"a\":2}\n{ \"type\" : \"final_answer\" , \"content\": \"x\" }\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	if stats != (ValidateStats{Events: 2}) {
		t.Errorf("stats %+v", stats)
	}
}

func TestValidateStats(t *testing.T) {
	in := `{"type":"text","content":"hi"}
not json
{"type":"tool_call","id":"1","name":"get_weather","arguments":{"city":"Paris"}}
{"type":"tool_call","id":"2","name":"get_weather","arguments":{}}
{"type":"tool_call","id":"3","name":"nope","arguments":{}}
`
	var lines []int
	stats, err := Validate(context.Background(), strings.NewReader(in), io.Discard, testTools(), ValidateOptions{
		Warn: func(n int, err error) { lines = append(lines, n) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := (ValidateStats{Events: 4, Calls: 3, Failed: 2, Skipped: 1}); stats != want {
		t.Errorf("stats %+v, want %+v", stats, want)
	}
	if !slices.Equal(lines, []int{2}) {
		t.Errorf("warned about lines %v, want [2]", lines)
	}
}

// TestValidateStopsOnCancel checks that a cancelled context stops the
// stream between lines and is returned.
func TestValidateStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	in := strings.Repeat(`{"type":"text","content":"x"}`+"\n", 10)
	lines := 0
	w := writerFunc(func(p []byte) (int, error) {
		lines += bytes.Count(p, []byte("\n"))
		if lines >= 3 {
			cancel()
		}
		return len(p), nil
	})
	_, err := Validate(ctx, &lineReader{in: in}, w, testTools(), ValidateOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if lines != 3 {
		t.Errorf("%d lines written after cancel at 3", lines)
	}
}

// TestValidateWrites checks when output is written: each line as soon as
// the input pauses, and a burst of input in one write of whole lines.
func TestValidateWrites(t *testing.T) {
	in := strings.Repeat(`{"type":"text","content":"x"}`+"\n", 10)
	var writes []string
	w := writerFunc(func(p []byte) (int, error) {
		writes = append(writes, string(p))
		return len(p), nil
	})
	if _, err := Validate(context.Background(), &lineReader{in: in}, w, testTools(), ValidateOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(writes) != 10 {
		t.Errorf("a line at a time in: %d writes, want 10", len(writes))
	}
	writes = nil
	if _, err := Validate(context.Background(), strings.NewReader(in), w, testTools(), ValidateOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(writes) != 1 || writes[0] != in {
		t.Errorf("a burst in: %d writes %q, want one of all the lines", len(writes), writes)
	}
}

// lineReader gives its input one line per Read, like a slow pipe.
type lineReader struct{ in string }

func (r *lineReader) Read(p []byte) (int, error) {
	if r.in == "" {
		return 0, io.EOF
	}
	n := strings.IndexByte(r.in, '\n') + 1
	if n == 0 {
		n = len(r.in)
	}
	n = copy(p, r.in[:n])
	r.in = r.in[n:]
	return n, nil
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestValidateReportsWriteAndReadErrors(t *testing.T) {
	boom := errors.New("disk full")
	_, err := Validate(context.Background(), strings.NewReader(`{"type":"text"}`+"\n"), writerFunc(func([]byte) (int, error) { return 0, boom }), testTools(), ValidateOptions{})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "writing") {
		t.Errorf("write error: %v", err)
	}
	_, err = Validate(context.Background(), iotest.ErrReader(boom), io.Discard, testTools(), ValidateOptions{})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "reading") {
		t.Errorf("read error: %v", err)
	}
}

func TestReadLines(t *testing.T) {
	long := strings.Repeat("x", 3*lineBufferSize+17)
	in := "a\r\n\n  \nb\n" + long + "\r\n\t\nlast"
	type got struct {
		n    int
		line string
	}
	var lines []got
	err := readLines(iotest.HalfReader(strings.NewReader(in)), lineOptions{}, func(line []byte, n int) error {
		lines = append(lines, got{n, string(line)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []got{{1, "a"}, {4, "b"}, {5, long}, {7, "last"}}
	if diff := cmp.Diff(want, lines, cmp.AllowUnexported(got{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	stop := errors.New("stop")
	if err := readLines(strings.NewReader("a\nb\n"), lineOptions{}, func([]byte, int) error { return stop }); err != stop {
		t.Errorf("callback error not returned: %v", err)
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"get_weather", "get_forecast", "weather_alerts", "set_alarm", "search_files", "math.factorial", "HTTPGet", "delete_file"}
	cases := []struct {
		name string
		want []string
	}{
		{"getWeather", []string{"get_weather", "weather_alerts"}},
		{"weather.get", []string{"get_weather", "weather_alerts"}},
		{"get_wether", []string{"get_weather"}},
		{"GET-WEATHER", []string{"get_weather", "weather_alerts"}},
		{"weather", []string{"get_weather", "weather_alerts"}},
		{"weather_alert", []string{"weather_alerts", "get_weather"}},
		{"factorial", []string{"math.factorial"}},
		{"math_factorail", []string{"math.factorial"}},
		{"http_get", []string{"HTTPGet"}},
		{"serch_file", []string{"search_files"}},
		{"completely_unrelated", nil},
		{"", nil},
		// A common short word alone ("get") does not make names related.
		{"get_weather", []string{"weather_alerts"}},
		{"get_time", nil},
	}
	for _, c := range cases {
		got := editdist.Suggest(c.name, names)
		if !slices.Equal(got, c.want) {
			t.Errorf("editdist.Suggest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestObservationAppendJSON(t *testing.T) {
	code, ms := 2, int64(15)
	cases := []struct {
		o    Observation
		want string
	}{
		{Observation{ID: "call_1", Name: "x", Content: "ok"},
			`{"type":"tool_observation","id":"call_1","name":"x","content":"ok","is_error":false}`},
		{Observation{ID: "c", Name: "x", Content: "bad\n\"q\"", IsError: true, Error: &ToolError{Kind: KindExecution, Message: "m", Details: []byte(`{"a":1}`)},
			ExitCode: &code, DurationMS: &ms, Truncated: true, Ref: "scratch/1.txt"},
			`{"type":"tool_observation","id":"c","name":"x","content":"bad\n\"q\"","is_error":true,"error":{"kind":"execution","message":"m","details":{"a":1}},"exit_code":2,"duration_ms":15,"truncated":true,"ref":"scratch/1.txt"}`},
		{Observation{ID: "c", Name: "x", IsError: true, Error: &ToolError{Kind: KindTimeout, Message: "slow"}},
			`{"type":"tool_observation","id":"c","name":"x","content":"","is_error":true,"error":{"kind":"timeout","message":"slow"}}`},
	}
	for _, c := range cases {
		if got := string(c.o.AppendJSON(nil)); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

// BenchmarkValidateStream measures validate on a stream of BFCL-sized
// calls, all valid, schemas compiled once.
func BenchmarkValidateStream(b *testing.B) {
	set := testTools()
	line := []byte(`{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris","units":"celsius","days":3},"format":"json"}` + "\n")
	const perRun = 1000
	input := bytes.Repeat(line, perRun)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		stats, err := Validate(context.Background(), bytes.NewReader(input), io.Discard, set, ValidateOptions{})
		if err != nil || stats.Failed != 0 {
			b.Fatal(err, stats)
		}
	}
	b.ReportMetric(float64(b.N*perRun)/b.Elapsed().Seconds(), "calls/s")
}

// TestValidateConcurrentCompile runs validate from several goroutines on
// one tool set: the lazy compile must happen once and be race-free.
func TestValidateConcurrentCompile(t *testing.T) {
	set := testTools()
	in := `{"type":"tool_call","id":"1","name":"route","arguments":{"from":{"lat":1,"lon":2},"to":{"lat":3,"lon":4}}}` + "\n"
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			var out bytes.Buffer
			if _, err := Validate(context.Background(), strings.NewReader(in), &out, set, ValidateOptions{}); err != nil {
				t.Error(err)
			}
			if !gjson.Get(out.String(), "validated").Bool() {
				t.Errorf("not validated: %s", out.String())
			}
		})
	}
	wg.Wait()
}
