package run

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// The credentials go to the model server's host and to no other: a
// redirect elsewhere, on any of the three request paths, arrives without
// them, whether they came as a key or as the base URL's userinfo.
func TestModelClientDropsCredentialsOnRedirect(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{} // path at the other host -> Authorization
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = r.Header.Get("Authorization")
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer other.Close()
	var home []string // Authorization headers the server itself got
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		home = append(home, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer server.Close()
	// other is another server on the same machine, at another port: net/http
	// itself would forward an Authorization header there, since it
	// compares host names only.

	for _, c := range []struct {
		name, base, key, wantHome string
	}{
		{"key", server.URL + "/v1", "sk-secret-key", "Bearer sk-secret-key"},
		{"userinfo", strings.Replace(server.URL, "http://", "http://me:pw-secret@", 1) + "/v1", "", "Basic bWU6cHctc2VjcmV0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mu.Lock()
			clear(seen)
			home = nil
			mu.Unlock()
			opts := HTTPOptions{BaseURL: c.base, APIKey: c.key, Retries: 1}
			ctx := context.Background()
			NewChat(opts).Complete(ctx, &Request{Messages: []Message{{Role: "user", Content: "hi"}}}, nopSink{})
			ServerTemplate(ctx, opts)
			Probe(ctx, ProbeOptions{HTTP: opts, Checks: []string{CheckModels}}, func([]byte) error { return nil })
			mu.Lock()
			defer mu.Unlock()
			for _, p := range []string{"/v1/chat/completions", "/props", "/v1/models"} {
				auth, ok := seen[p]
				if !ok {
					t.Errorf("%s was not redirected to the other host (it saw %v)", p, seen)
				}
				if auth != "" {
					t.Errorf("%s: the other host got Authorization %q", p, auth)
				}
			}
			if len(home) < 3 {
				t.Fatalf("the server got %d requests", len(home))
			}
			for _, a := range home {
				if a != c.wantHome {
					t.Errorf("the server itself got Authorization %q, want %q", a, c.wantHome)
				}
			}
		})
	}
}

// nopSink takes a reply and keeps nothing.
type nopSink struct{}

func (nopSink) Text([]byte) (bool, error)                       { return false, nil }
func (nopSink) Reasoning([]byte) error                          { return nil }
func (nopSink) NativeCall(string, string, []byte) (bool, error) { return false, nil }
