package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every request path to the model server shows its URL without the
// password of --base-url: here --template auto's GET /props, which once
// named the URL as given, password and all, when the server had no
// template to give or could not be reached.
func TestTemplateAutoNeverShowsTheURLPassword(t *testing.T) {
	clearEnv(t)
	t.Setenv("OPENAI_API_KEY", "")
	const password = "Pr0ps-pa55-in-url"
	gone := refusedAddr(t)
	var gotUser, gotPassword string
	noProps := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotUser, gotPassword, _ = r.BasicAuth()
		http.NotFound(w, r)
	}))
	defer noProps.Close()
	for _, c := range []struct{ name, host, want string }{
		{"no /props", strings.TrimPrefix(noProps.URL, "http://"), "http://" + strings.TrimPrefix(noProps.URL, "http://") + "/props answered 404"},
		{"refused", gone, "cannot reach http://" + gone + "/props"},
	} {
		t.Run(c.name, func(t *testing.T) {
			record := filepath.Join(t.TempDir(), "rec.jsonl")
			code, stdout, stderr := runCLI(t, "run", "--api", "completions", "--template", "auto", "--record", record,
				"--timeout", "20s", "--base-url", "http://me:"+password+"@"+c.host+"/v1", "Hello?")
			if code == 0 {
				t.Errorf("exit 0, want a failure")
			}
			rec, _ := os.ReadFile(record) // there may be none: the run did not start
			for what, text := range map[string]string{"stdout": stdout, "stderr": stderr, "--record": string(rec)} {
				if strings.Contains(text, password) || strings.Contains(text, "me:") {
					t.Errorf("%s shows the userinfo:\n%s", what, text)
				}
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr does not say %q:\n%s", c.want, stderr)
			}
		})
	}
	// The credentials still went to the server, as basic auth.
	if gotUser != "me" || gotPassword != password {
		t.Errorf("the server got user %q, password %q", gotUser, gotPassword)
	}
}
