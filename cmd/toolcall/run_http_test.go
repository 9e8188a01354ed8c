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

// A server that accepts the request and then sends nothing fails the run
// after --stall-timeout, not the 5m default, and the message says so.
func TestRunStallTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	var stdout, stderr bytes.Buffer
	code := execute(context.Background(), []string{"run", "--tools", t.TempDir(), "--base-url", srv.URL + "/v1", "--stall-timeout", "200ms", "Hello?"},
		strings.NewReader(""), &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if want := "the stream sent nothing for 200ms"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}

// The defaults fit a local model, and --help says why.
func TestRunDefaultsForLocalModels(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := execute(context.Background(), []string{"run", "--help"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	help := strings.Join(strings.Fields(stdout.String()), " ")
	for _, want := range []string{
		"--timeout DURATION stop the whole run after this long (a local model on a CPU can take minutes a turn) (default 10m)",
		"--stall-timeout DURATION fail a request when the server sends nothing for this long (a local server can read a long prompt for minutes before its first token) (model servers only) (default 5m)",
		"--max-iterations N stop after this many model turns (enough for a small model to correct a call or two) (default 10)",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("run --help lacks %q", want)
		}
	}
}
