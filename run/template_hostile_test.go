package run

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// hostileProps is a model server whose /props sends template as the
// model's chat template.
func hostileProps(t *testing.T, template string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"chat_template": template})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// With --template auto the server chooses the template: one that pulls
// a local file into the prompt (which goes back to the same server) is
// refused before anything is rendered.
func TestServerTemplateReadsNoFiles(t *testing.T) {
	const secret = "SECRET-private-key-bytes"
	key := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(key, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		`{% for m in messages %}{{ m.content }}{% endfor %}{% include "` + key + `" %}`,
		`{% if messages | length > 1 %}{% include "/proc/self/environ" %}{% endif %}{{ messages[0].content }}`,
		`{% include "/dev/zero" %}`,
	} {
		srv := hostileProps(t, src)
		tmpl, err := ServerTemplate(context.Background(), HTTPOptions{BaseURL: srv.URL + "/v1"})
		if err == nil {
			p, rerr := tmpl.Render(conversation)
			t.Errorf("%s: accepted; it renders %.200q, %v", src, p, rerr)
			continue
		}
		if !strings.Contains(err.Error(), "may not read other files") || strings.Contains(err.Error(), secret) {
			t.Errorf("%s: %v", src, err)
		}
	}
}

// A FIFO given as --template (a Go template or a model's) fails at once
// instead of waiting for a writer.
func TestTemplateRefusesFIFO(t *testing.T) {
	for _, name := range []string{"prompt.tmpl", "chat_template.jinja", "model"} {
		p := filepath.Join(t.TempDir(), name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		if _, err := Template(p); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
