package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/leaktest"
	"github.com/toolcall/toolcall/tools/redact"
)

// saveOutput runs finishScratch on output as exec would: streamed into a
// temporary file in dir first.
func saveOutput(t *testing.T, dir, callID, output string, r *redact.Redactor) string {
	t.Helper()
	f, err := os.CreateTemp(dir, ".output-*")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(output); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ref, err := finishScratch(dir, f.Name(), callID, r, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f.Name()); !os.IsNotExist(err) {
		t.Errorf("the temporary file %s is still there", f.Name())
	}
	return ref
}

var refPattern = regexp.MustCompile(`^ref:[A-Za-z0-9_-]+-[0-9a-f]{32}$`)

func TestFinishScratch(t *testing.T) {
	dir := t.TempDir()
	key := "ghp_" + leaktest.FakeKey(60, 36)
	r := redact.New([]string{"DB_PASSWORD=hunter22"}, nil)
	output := strings.Repeat("row 1,2,3\n", 1000) + "token " + key + " pw hunter22\n"

	ref := saveOutput(t, dir, "call_1", output, r)
	if !refPattern.MatchString(ref) || !strings.HasPrefix(ref, "ref:call_1-") {
		t.Errorf("ref %q", ref)
	}
	saved, err := os.ReadFile(filepath.Join(dir, strings.TrimPrefix(ref, "ref:")+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := r.String(output); string(saved) != want {
		t.Errorf("saved file is not the redacted output")
	}
	if bytes.Contains(saved, []byte(key)) || bytes.Contains(saved, []byte("hunter22")) {
		t.Error("a secret reached the scratch file")
	}

	// The same call with the same output: the same ref; other output or
	// another call: another.
	if again := saveOutput(t, dir, "call_1", output, r); again != ref {
		t.Errorf("same call and output gave %q, then %q", ref, again)
	}
	if other := saveOutput(t, dir, "call_1", output+"more", r); other == ref {
		t.Errorf("different output, same ref %q", ref)
	}
	if odd := saveOutput(t, dir, "../x/y z", "out", r); !refPattern.MatchString(odd) || !strings.HasPrefix(odd, "ref:___x_y_z-") {
		t.Errorf("call id with path characters gave %q", odd)
	}
	if empty := saveOutput(t, dir, "", "out", r); !strings.HasPrefix(empty, "ref:call-") {
		t.Errorf("empty call id gave %q", empty)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestFinishScratchMissingDir(t *testing.T) {
	_, err := finishScratch(filepath.Join(t.TempDir(), "gone"), "/nonexistent/tmp", "c", nil, 0)
	if err == nil || !strings.Contains(err.Error(), "--scratch") {
		t.Errorf("err = %v", err)
	}
}

func TestResolveRefs(t *testing.T) {
	dir := t.TempDir()
	ref := saveOutput(t, dir, "call_7", "line \"one\"\n\tline two\\\n", nil)
	id := strings.TrimPrefix(ref, "ref:")
	const text = `"line \"one\"\n\tline two\\\n"`
	cases := []struct{ name, in, want, err string }{
		{name: "no refs", in: `{"a": "b", "n": [1, 2.50, null]}`, want: `{"a": "b", "n": [1, 2.50, null]}`},
		{name: "top level", in: `{"text": "` + ref + `"}`, want: `{"text":` + text + `}`},
		{name: "nested, order kept", in: `{"z": 1, "list": [{"doc": "` + ref + `"}], "a": "see ` + ref + `"}`,
			want: `{"z":1,"list":[{"doc":` + text + `}],"a":"see ` + ref + `"}`},
		{name: "escaped ref", in: `{"t": "ref\u003a` + id + `"}`, want: `{"t":` + text + `}`},
		{name: "arguments as a string", in: `"{\"t\": \"` + ref + `\"}"`, want: `{"t":` + text + `}`},
		{name: "keys are not refs", in: `{"` + ref + `": 1}`, want: `{"` + ref + `": 1}`},
		{name: "git HEAD is not a ref", in: `{"head": "ref: refs/heads/main"}`, want: `{"head": "ref: refs/heads/main"}`},
		{name: "ref prefix alone", in: `{"x": "ref:"}`, want: `{"x": "ref:"}`},
		{name: "unknown", in: `{"t": "ref:call_9-00000000"}`, err: `argument "ref:call_9-00000000" names no saved output in ` + dir + `: refs come from the "ref" of an earlier truncated output`},
		{name: "path", in: `{"t": "ref:../../etc/passwd"}`, err: `argument "ref:../../etc/passwd" names no saved output`},
		{name: "dotfile", in: `{"t": "ref:.output-123"}`, err: `names no saved output`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := resolveRefs([]byte(c.in), dir, 0)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestResolveRefsWithoutScratch(t *testing.T) {
	_, _, err := resolveRefs([]byte(`{"t":"ref:call_1-0123abcd0123abcd0123abcd0123abcd"}`), "", 0)
	if err == nil || !strings.Contains(err.Error(), "without --scratch") {
		t.Errorf("err = %v", err)
	}
	in := []byte(`{"t":"plain"}`)
	if got, _, err := resolveRefs(in, "", 0); err != nil || !bytes.Equal(got, in) {
		t.Errorf("got %s, %v", got, err)
	}
}

func TestResolveRefsTooLarge(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "big-0123456789abcdef0123456789abcdef.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxRefSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, _, err := resolveRefs([]byte(`{"t":"ref:big-0123456789abcdef0123456789abcdef"}`), dir, 0); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("err = %v", err)
	}
}

// A ref round trip: a saved output, with characters JSON must escape and
// invalid UTF-8, comes back as one valid JSON string.
func FuzzResolveRefs(f *testing.F) {
	dir := f.TempDir()
	var refs []string
	for i, text := range []string{"plain text\n", "quote \" backslash \\ tab \t nul \x00 bad \xff\xfe end \u2028", ""} {
		tmp := filepath.Join(dir, fmt.Sprintf(".output-%d", i))
		if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
			f.Fatal(err)
		}
		ref, err := finishScratch(dir, tmp, string(rune('a'+i)), nil, 0)
		if err != nil {
			f.Fatal(err)
		}
		refs = append(refs, ref)
	}
	a, b, c := refs[0], refs[1], refs[2]
	for _, s := range []string{
		`{"x":"` + a + `"}`,
		`{"x":["` + b + `",{"` + c + `":"` + c + `"}],"y":"ref\u003a` + strings.TrimPrefix(a, "ref:") + `"}`,
		`{"x":"ref:zz-00000000"}`,
		`{"x":"ref:../` + strings.TrimPrefix(a, "ref:") + `"}`,
		`{"x":"ref: a-00000001", "y": "\"` + a + `\""}`,
		`["` + a + `", 1, true, null, "\\"]`,
		`{"x":"` + a,
		`"` + a + `"`,
		`"{\"x\":\"` + a + `\"}"`,
		// Amplification: one saved output named again and again.
		`{"x":[` + strings.Repeat(`"`+b+`",`, 40) + `"` + b + `"]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		// Under a budget, what the refs stand for adds at most the budget:
		// it counts the text as passed, escaped.
		const budget = 64
		if out, _, err := resolveRefs(args, dir, budget); err == nil && len(out) > len(args)+budget {
			t.Fatalf("refs under a %d-byte budget grew %d bytes to %d", budget, len(args), len(out))
		}
		out, uses, err := resolveRefs(args, dir, 0)
		if err != nil {
			return
		}
		if len(uses) == 0 {
			if !bytes.Equal(out, args) {
				t.Fatalf("input without refs changed: %q -> %q", args, out)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("input %q gave invalid output %q", args, out)
		}
		if n := countRefs(t, out); n != 0 {
			t.Fatalf("%d refs left in %q (from %q)", n, out, args)
		}
	})
}

// countRefs counts the string values of the valid JSON doc that are refs.
func countRefs(t *testing.T, doc []byte) int {
	// Walked with gjson rather than decoded into maps: a key given twice
	// must count twice, as resolveRefs sees both.
	if !gjson.ValidBytes(doc) {
		t.Fatalf("not JSON: %q", doc)
	}
	n := 0
	var walk func(v gjson.Result)
	walk = func(v gjson.Result) {
		switch {
		case v.Type == gjson.String:
			if _, ok := refID(v.Str); ok {
				n++
			}
		case v.IsArray() || v.IsObject():
			v.ForEach(func(_, x gjson.Result) bool {
				walk(x)
				return true
			})
		}
	}
	walk(gjson.ParseBytes(doc))
	return n
}
