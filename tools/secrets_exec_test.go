//go:build unix

package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/internal/leaktest"
	"github.com/toolcall/toolcall/tools/redact"
)

// An argument that breaks the schema is quoted in the validation error;
// a secret there is redacted, in exec and in validate alike.
func TestValidationErrorRedacts(t *testing.T) {
	const secret = "hunter2-Correct-Horse"
	dir := t.TempDir()
	tool := shTool(t, dir, "note", `cat`)
	tool.InputSchema = []byte(`{"type":"object","properties":{"text":{"type":"string","maxLength":5},"n":{"type":"integer"}}}`)
	set := execSet{"note": tool}
	in := callLine("1", "note", `{"text":"`+secret+`"}`) + callLine("2", "note", `{"n":"`+secret+`"}`) + callLine("3", secret, `{}`)
	env := []string{"PATH=" + os.Getenv("PATH"), "NOTE_TOKEN=" + secret}

	out, st, err := runExec(t, context.Background(), set, in, ExecOptions{Environ: env})
	if err != nil || st.Failed != 3 {
		t.Fatalf("exec: %v, %+v", err, st)
	}
	var vout bytes.Buffer
	if _, err := Validate(context.Background(), strings.NewReader(in), &vout, set, ValidateOptions{Redactor: redact.New(env, nil)}); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{"exec": out, "validate": vout.String()} {
		if f := leaktest.Find(got, leaktest.Forms(secret)); f != "" {
			t.Errorf("%s: %q in\n%s", name, f, got)
		}
		if !strings.Contains(got, "maxLength") || strings.Count(got, redact.Marker) < 3 {
			t.Errorf("%s: want the errors, redacted:\n%s", name, got)
		}
	}
}

// Property: for random secrets, known from the environment or given
// outright, no event exec writes holds one in any form an encoder gives
// it: not in a result (text or JSON), not in stderr shown for a failure,
// not in a validation error, not in a dry run.
func TestExecNeverWritesASecret(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	n := 25
	if testing.Short() {
		n = 5
	}
	dir := t.TempDir()
	leaks := filepath.Join(dir, "forms.txt")
	set := execSet{
		"show":  shTool(t, dir, "show", `cat `+leaks),
		"fail":  shTool(t, dir, "fail", `cat `+leaks+` >&2; cat `+leaks+`; exit 3`),
		"json":  shTool(t, dir, "json", `cat `+leaks+`.json`),
		"short": shTool(t, dir, "short", `cat`),
	}
	set["short"].InputSchema = []byte(`{"type":"object","properties":{"s":{"type":"string","maxLength":2}}}`)
	for i := range n {
		secret := leaktest.RandomSecret(rng)
		forms := leaktest.Forms(secret)
		if err := os.WriteFile(leaks, []byte("found: "+strings.Join(forms, "\nfound: ")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		doc, _ := json.Marshal(map[string]any{"forms": forms, "nested": map[string]string{"body": string(must(json.Marshal(map[string]string{"pw": secret})))}})
		if err := os.WriteFile(leaks+".json", doc, 0o644); err != nil {
			t.Fatal(err)
		}
		arg, _ := json.Marshal(map[string]string{"s": secret})
		in := callLine("1", "show", `{}`) + callLine("2", "fail", `{}`) + callLine("3", "json", `{}`) + callLine("4", "short", string(arg))
		opts := ExecOptions{Environ: []string{"PATH=" + os.Getenv("PATH")}}
		if i%2 == 0 {
			opts.Environ = append(opts.Environ, "SERVICE_PASSWORD="+secret)
		} else {
			opts.Secrets = []string{secret}
		}
		for _, dry := range []bool{false, true} {
			opts.DryRun = dry
			out, _, err := runExec(t, context.Background(), set, in, opts)
			if err != nil {
				t.Fatal(err)
			}
			if f := leaktest.Find(out, forms); f != "" {
				t.Fatalf("secret %q (dry run %v): the form %q is in\n%s", secret, dry, f, out)
			}
			if !dry && strings.Count(out, "found: "+redact.Marker) < 2*len(forms) {
				t.Fatalf("secret %q: want every line redacted:\n%s", secret, out)
			}
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// A long argument is quoted cut short ("…") in a validation error: the
// start of a secret there goes too, raw or escaped.
func TestValidationErrorRedactsASecretCutShort(t *testing.T) {
	// 168 bytes, quoted only in part; the first needs escapes in JSON.
	for _, secret := range []string{strings.Repeat(`Long&"secret"-`, 12), strings.Repeat(`Long-secret-0-`, 12)} {
		tool := &Tool{Name: "note", Safe: true, InputSchema: []byte(`{"type":"object","properties":{"text":{"type":"string","maxLength":10},"n":{"type":"integer"}}}`)}
		set := execSet{"note": tool}
		arg, _ := json.Marshal(secret)
		in := callLine("1", "note", `{"text":`+string(arg)+`}`) + callLine("2", "note", `{"n":{"deep":`+string(arg)+`}}`)
		var out bytes.Buffer
		if _, err := Validate(context.Background(), strings.NewReader(in), &out, set, ValidateOptions{Redactor: redact.New(nil, nil, secret)}); err != nil {
			t.Fatal(err)
		}
		if f := leaktest.Find(out.String(), leaktest.Forms(secret[:12])); f != "" {
			t.Errorf("the secret's start %q is in\n%s", f, out.String())
		}
		if strings.Count(out.String(), redact.Marker+"…") < 2 {
			t.Errorf("want the quotes redacted and cut:\n%s", out.String())
		}
	}
}

// The password in an mcp_server url is a secret of every run that uses
// the server's tools.
func TestHostileServerURLPasswordIsASecret(t *testing.T) {
	srv := &fakeServer{secrets: []string{"s3cr!t-pass", "s3cr%21t-pass"}}
	set := execSet{"a": {Name: "a", Server: srv}, "b": {Name: "b", Server: srv}}
	got := serverSecrets(set)
	if strings.Join(got, " ") != "s3cr!t-pass s3cr%21t-pass" {
		t.Errorf("serverSecrets = %q, want each server's once", got)
	}
}
