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

// A server knows the key it is sent. Its template can raise it, or quote
// it in a template that does not parse, with escape sequences around it:
// the error toolcall prints shows neither the key nor a raw control byte.
func TestServerTemplateErrorsRedactedAndEscaped(t *testing.T) {
	const apiKey = "sk-live-0123456789abcdefXYZ"
	for name, tmpl := range map[string]func(key string) string{
		"raises": func(key string) string {
			return `{{ raise_exception("your key is ` + key + ` \x1b]0;pwned\x07\ntoolcall: all fine") }}`
		},
		"does not parse": func(key string) string {
			return "{% for m in messages %}{{ m.content }\x1b[2J" + key + "\n" + strings.Repeat("padding ", 10)
		},
		"does not render": func(key string) string {
			return "{{ messages[0].content | no_such_filter('" + key + "\x1b[31m') }}"
		},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			json.NewEncoder(w).Encode(map[string]any{"chat_template": tmpl(key)})
		}))
		_, err := ServerTemplate(context.Background(), HTTPOptions{BaseURL: srv.URL + "/v1", APIKey: apiKey})
		srv.Close()
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, apiKey) || strings.ContainsAny(msg, "\x1b\x07\n") {
			t.Errorf("%s: %q", name, msg)
		}
	}
}
