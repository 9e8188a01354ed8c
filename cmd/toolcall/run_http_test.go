package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// A web page answered with 200 where the API should be (a captive portal,
// a web UI on the wrong port) is named by its title, asked for once, and
// the run exits 1.
func TestRunHTMLPage(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><html><head><title>Guest Wi-Fi</title></head><body><h1>Welcome</h1></body></html>")
	}))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	code := execute(context.Background(), []string{"run", "--tools", t.TempDir(), "--base-url", srv.URL + "/v1", "Hello?"},
		strings.NewReader(""), &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	want := "the server sent an HTML page (Guest Wi-Fi), not an API reply"
	if !strings.Contains(stderr.String(), want) || !strings.Contains(stdout.String(), `"reason":"provider_error"`) {
		t.Errorf("stderr %q\nstdout %s\nwant %q and a provider_error stop", stderr.String(), stdout.String(), want)
	}
	if strings.Contains(stderr.String()+stdout.String(), "<h1>") {
		t.Error("the page's markup reached the output")
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests, want 1: a page is not asked for again", n)
	}
}
