package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/internal/leaktest"
)

// runCLI runs toolcall in-process with args (run with no tools) and
// returns the exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if len(args) > 0 && args[0] == "run" { // no tools: an empty directory
		args = append([]string{"run", "--tools", t.TempDir()}, args[1:]...)
	}
	code := execute(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// echoKeyServer refuses every request the way OpenAI does, quoting the
// key it was sent (JSON-escaped, as Go writes it).
func echoKeyServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		body, _ := json.Marshal(map[string]any{"error": map[string]string{
			"message": "Incorrect API key provided: " + key + ". You can find your API key at https://platform.openai.com/account/api-keys.",
			"type":    "invalid_request_error",
		}})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The key toolcall sends, from any source, never appears in what run
// writes, even when the server quotes it; the hint names its source.
func TestRunNeverShowsTheAPIKey(t *testing.T) {
	clearEnv(t)
	srv := echoKeyServer(t)
	// Not of a known shape: only knowing the key catches it.
	const key = "local-Key&<my>é-0451"
	for _, c := range []struct {
		name, source string
		args         []string
		env          map[string]string
	}{
		{"flag", "--api-key", []string{"--api-key", key}, nil},
		{"toolcall variable", "TOOLCALL_API_KEY", nil, map[string]string{"TOOLCALL_API_KEY": key}},
		{"openai variable", "OPENAI_API_KEY", nil, map[string]string{"OPENAI_API_KEY": key}},
		{"flag over openai variable", "--api-key", []string{"--api-key", key}, map[string]string{"OPENAI_API_KEY": "another-key-7"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("OPENAI_API_KEY", "")
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			record := filepath.Join(t.TempDir(), "rec.jsonl")
			args := append([]string{"run", "--base-url", srv.URL + "/v1", "--record", record}, c.args...)
			code, stdout, stderr := runCLI(t, append(args, "Hello?")...)
			if code != exitFailure {
				t.Errorf("exit %d, want %d", code, exitFailure)
			}
			rec, err := os.ReadFile(record)
			if err != nil {
				t.Fatal(err)
			}
			for what, text := range map[string]string{"stdout": stdout, "stderr": stderr, "--record": string(rec)} {
				if f := leaktest.Find(text, leaktest.Forms(key)); f != "" {
					t.Errorf("%s holds the key as %q:\n%s", what, f, text)
				}
			}
			if !strings.Contains(stdout, `"reason":"provider_error"`) || !strings.Contains(stdout, "Incorrect API key provided: [REDACTED]") {
				t.Errorf("stdout:\n%s", stdout)
			}
			if want := "check the API key (from " + c.source + ")"; !strings.Contains(stderr, want) {
				t.Errorf("stderr does not say %q:\n%s", want, stderr)
			}
		})
	}
	t.Run("no key", func(t *testing.T) {
		t.Setenv("OPENAI_API_KEY", "")
		_, _, stderr := runCLI(t, "run", "--base-url", srv.URL+"/v1", "Hello?")
		if want := "no API key was sent (give one with --api-key, TOOLCALL_API_KEY or OPENAI_API_KEY)"; !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	})
}

// A password in --base-url is never shown: URLs in messages lose their
// userinfo, and the password is a secret of the transcript.
func TestRunNeverShowsTheURLPassword(t *testing.T) {
	clearEnv(t)
	t.Setenv("OPENAI_API_KEY", "")
	const password = "Pa55-w0rd-in-url"
	gone := refusedAddr(t) // a server that is gone: the connection is refused
	srv := echoKeyServer(t)
	for _, c := range []struct {
		name, url string
		code      int
		want      string
	}{
		{"refused", "http://me:" + password + "@" + gone + "/v1", exitFailure, "cannot reach http://" + gone + "/v1/chat/completions"},
		{"401, from the variable", "http://me:" + password + "@" + strings.TrimPrefix(srv.URL, "http://") + "/v1", exitFailure, "HTTP 401"},
		{"401", "http://me:" + password + "@" + strings.TrimPrefix(srv.URL, "http://") + "/v1", exitFailure, "HTTP 401"},
		{"does not parse", "http://me:" + password + "@host:port/v1", exitUsage, "--base-url http://host:port/v1 is not a base URL (invalid port"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"run", "--timeout", "20s", "--base-url", c.url, "Hello?"}
			if strings.Contains(c.name, "variable") {
				t.Setenv("OPENAI_BASE_URL", c.url)
				args = []string{"run", "--timeout", "20s", "Hello?"}
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != c.code {
				t.Errorf("exit %d, want %d", code, c.code)
			}
			for what, text := range map[string]string{"stdout": stdout, "stderr": stderr} {
				if strings.Contains(text, password) || strings.Contains(text, "me:") {
					t.Errorf("%s shows the userinfo:\n%s", what, text)
				}
			}
			if !strings.Contains(stdout+stderr, c.want) {
				t.Errorf("want %q in:\n%s%s", c.want, stdout, stderr)
			}
		})
	}
}

// The model's own text is redacted too: a secret-named variable's value
// and the key, in the assistant event, the text and the final answer.
func TestRunRedactsTheModelsText(t *testing.T) {
	clearEnv(t)
	const key, token = "key-for-the-server-1", "deploy-token-<&>-42"
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("DEPLOY_TOKEN", token)
	answer, _ := json.Marshal(token + " and " + key)
	content, _ := json.Marshal("The token is " + string(answer) + ".\n" + `{"type":"final_answer","content":` + string(answer) + "}")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"model":"m","choices":[{"message":{"role":"assistant","content":` +
			string(content) +
			`},"finish_reason":"stop"}]}`))
	}))
	t.Cleanup(srv.Close)
	code, stdout, stderr := runCLI(t, "run", "--no-stream", "--base-url", srv.URL+"/v1", "Which token?")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s%s", code, stdout, stderr)
	}
	for _, secret := range []string{key, token} {
		if f := leaktest.Find(stdout, leaktest.Forms(secret)); f != "" {
			t.Errorf("the transcript holds %q:\n%s", f, stdout)
		}
	}
	if !strings.Contains(stdout, `{"type":"final_answer","content":"[REDACTED] and [REDACTED]",`) {
		t.Errorf("transcript:\n%s", stdout)
	}
}

// A secret given to the server in --extra (a key named like one) is a
// secret of the transcript as the API key is: a server that echoes it in
// its reply shows [REDACTED].
func TestRunRedactsTheExtraSecrets(t *testing.T) {
	clearEnv(t)
	t.Setenv("OPENAI_API_KEY", "")
	const secret = "extra-Secret-<7>-77"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Keys struct {
				APIKey string `json:"api_key"`
			} `json:"keys"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		content, _ := json.Marshal("You sent " + body.Keys.APIKey + ".")
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"model":"m","choices":[{"message":{"role":"assistant","content":` + string(content) + `},"finish_reason":"stop"}]}`))
	}))
	t.Cleanup(srv.Close)
	extra, _ := json.Marshal(map[string]any{"keys": map[string]string{"api_key": secret}})
	code, stdout, stderr := runCLI(t, "run", "--no-stream", "--base-url", srv.URL+"/v1", "--extra", string(extra), "Hi")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s%s", code, stdout, stderr)
	}
	if f := leaktest.Find(stdout, leaktest.Forms(secret)); f != "" {
		t.Errorf("the transcript holds %q:\n%s", f, stdout)
	}
	if !strings.Contains(stdout, "You sent [REDACTED].") {
		t.Errorf("the server's reply is not in the transcript, redacted:\n%s", stdout)
	}
}

// refusedAddr is a loopback address nothing listens on: connecting to it
// is refused at once.
func refusedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
