package run

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
	"github.com/toolcall/toolcall/tools"
)

func TestSecrets(t *testing.T) {
	got := Secrets(HTTPOptions{BaseURL: "http://me:p%40ss-word@host/v1", APIKey: "key-123456"})
	for _, want := range []string{"key-123456", "p@ss-word", "p%40ss-word"} {
		if !strings.Contains(strings.Join(got, "\n"), want) {
			t.Errorf("Secrets = %q, want %q among them", got, want)
		}
	}
}

// The hint of a refused key names where the key came from, or says that
// none was sent.
func TestErrorMessageNamesTheKeySource(t *testing.T) {
	body := []byte(`{"error":{"message":"Incorrect API key provided"}}`)
	for _, c := range []struct{ key, source, want string }{
		{"k", "--api-key", "Incorrect API key provided; check the API key (from --api-key)"},
		{"k", "TOOLCALL_API_KEY", "Incorrect API key provided; check the API key (from TOOLCALL_API_KEY)"},
		{"", "--api-key or OPENAI_API_KEY", "Incorrect API key provided; no API key was sent (give one with --api-key or OPENAI_API_KEY)"},
		{"k", "", "Incorrect API key provided; check the API key"},
	} {
		if got := errorMessage(401, "application/json", body, c.key, c.source); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}

// Property: for random secrets, known as the API key or from a
// secret-named variable, no event of run holds one in any form an encoder
// gives it: not the model's prose, its call's arguments or its answer,
// not the tool's result, not the server's error, not the progress lines.
func TestLoopNeverWritesASecret(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	n := 20
	if testing.Short() {
		n = 4
	}
	dir := t.TempDir()
	forms := filepath.Join(dir, "forms.txt")
	c := shCatalog(t, shTool{"leak", `{"description":"Leaks.","input_schema":{"type":"object"}}`, `cat; cat ` + forms})
	for i := range n {
		secret := leaktest.RandomSecret(rng)
		all := leaktest.Forms(secret)
		if err := os.WriteFile(forms, []byte(strings.Join(all, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		args, _ := json.Marshal(map[string]string{"note": secret})
		answer, _ := json.Marshal(map[string]string{"type": "final_answer", "content": "the key is " + secret})
		b := &scripted{replies: []string{
			"The key is " + strings.Join(all, " or ") + ".\n" + `{"type":"tool_call","name":"leak","arguments":` + string(args) + "}\n",
			string(answer),
		}}
		if i%3 == 2 { // a server that quotes the key in its error
			b.replies = b.replies[:1]
			b.err = &ProviderError{Status: 401, Message: "Incorrect API key provided: " + secret, Attempts: 1}
		}
		opts := Options{Backend: b, Catalog: c, Exec: tools.ExecOptions{Environ: []string{"PATH=" + os.Getenv("PATH")}}}
		if i%2 == 0 {
			opts.Exec.Secrets = []string{secret}
		} else {
			opts.Exec.Environ = append(opts.Exec.Environ, "OPENAI_API_KEY="+secret)
		}
		var progress []string
		opts.Progress = func(msg string) { progress = append(progress, msg) }
		var out bytes.Buffer
		res, err := Loop(context.Background(), Input{Messages: []Message{{Role: "user", Content: "My key is " + secret}}}, &out, opts)
		if err != nil {
			t.Fatal(err)
		}
		for what, text := range map[string]string{"transcript": out.String(), "Result.Error": res.Error, "progress": strings.Join(progress, "\n")} {
			if f := leaktest.Find(text, all); f != "" {
				t.Fatalf("secret %q: the form %q is in the %s:\n%s", secret, f, what, text)
			}
		}
		if !strings.Contains(out.String(), `"type":"tool_observation"`) || !strings.Contains(out.String(), "[REDACTED]") {
			t.Fatalf("secret %q: want the call run, and redactions:\n%s", secret, out.String())
		}
	}
}
