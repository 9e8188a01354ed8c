package run

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

func TestServerTemplate(t *testing.T) {
	src, err := os.ReadFile(qwenTemplate)
	if err != nil {
		t.Fatal(err)
	}
	var gotAuth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/props" || r.Method != http.MethodGet {
			http.NotFound(w, r)
			return
		}
		gotAuth = r.Header.Get("Authorization")
		json.NewEncoder(w).Encode(map[string]any{"chat_template": string(src), "total_slots": 1})
	}))
	defer srv.Close()
	tmpl, err := ServerTemplate(context.Background(), HTTPOptions{BaseURL: srv.URL + "/v1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if gotAuth != "Bearer k" {
		t.Errorf("Authorization %q", gotAuth)
	}
	p, err := tmpl.Render(conversation)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(p, "<|im_start|>assistant\n") || tmpl.Stop()[0] != "<|im_end|>" {
		t.Errorf("prompt %q, stop %q", p, tmpl.Stop())
	}
}

func TestServerTemplateMissing(t *testing.T) {
	for name, h := range map[string]http.HandlerFunc{
		// Ollama and most servers: no /props.
		"no props": http.NotFound,
		"no template": func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"total_slots": 1}`))
		},
		"not jinja": func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"chat_template": "{% for m in messages %}"}`))
		},
	} {
		srv := httptest.NewServer(h)
		_, err := ServerTemplate(context.Background(), HTTPOptions{BaseURL: srv.URL + "/v1"})
		srv.Close()
		if err == nil || !strings.Contains(err.Error(), "--template auto") {
			t.Errorf("%s: %v", name, err)
		}
		if name == "no props" && !strings.Contains(err.Error(), "Ollama") {
			t.Errorf("%s: the error does not say why Ollama's template is not used: %v", name, err)
		}
	}
}
