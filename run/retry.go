package run

import (
	"bytes"
	"context"
	"errors"
	"html"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/clip"
)

const (
	backoffBase     = 500 * time.Millisecond
	backoffCap      = 10 * time.Second
	retryAfterLimit = 30 * time.Second
	// maxErrorBody is how much of an error reply we read: enough for any
	// message, not a whole HTML page.
	maxErrorBody = 64 << 10
	// maxMessage is how much of a server's message goes into an error.
	maxMessage = 500
)

// backoff is the wait before attempt n+1: "full jitter" (a random time up
// to an exponential ceiling), so clients that failed together do not all
// come back together.
func backoff(n int) time.Duration {
	ceiling := backoffCap
	if n < 8 {
		ceiling = min(backoffBase<<(n-1), backoffCap)
	}
	return rand.N(ceiling + 1)
}

// retryAfter reads a Retry-After header, in seconds or as an HTTP date;
// -1 when there is none or it cannot be read. Capped so that a server
// asking for an hour does not hang the run.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return -1
	}
	var d time.Duration
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return -1
		}
		d = time.Duration(min(s, int64(retryAfterLimit/time.Second))) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = max(t.Sub(now), 0)
	} else {
		return -1
	}
	return min(d, retryAfterLimit)
}

// sleep waits d, or less if ctx ends first.
func (b *httpBackend) sleep(ctx context.Context, d time.Duration) error {
	if b.opts.Sleep != nil {
		b.opts.Sleep(d)
		return ctx.Err()
	}
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// transient reports whether a connection failure may go away if we try
// again: refused (the server is starting), reset or closed early (it
// restarted, or a stale keep-alive connection), a timeout.
func transient(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return false
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// connMessage says what went wrong with the connection, and what to check.
func connMessage(target string, err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := "cannot reach " + DisplayURL(target) + ": " + err.Error()
	if errors.Is(err, syscall.ECONNREFUSED) {
		msg += "; is the model server running, and is the base URL right?"
	}
	return msg
}

// errorMessage is the message of a server's error reply: the JSON shapes
// the servers use ({"error":{"message":…}}, {"error":"…"},
// {"message":…}, {"detail":…}), the title of an HTML page (a proxy's
// 502), else the text itself; contentType is the media type alone. A
// refusal of the key says where the key came from (keySource, see
// HTTPOptions), or that none was sent.
func errorMessage(status int, contentType string, body []byte, apiKey, keySource string) string {
	msg := ""
	if isHTML(contentType, body) {
		msg = htmlMessage(body)
	} else if gjson.ValidBytes(body) {
		g := gjson.ParseBytes(body)
		msg = jsonErrorText(g)
	} else {
		msg = strings.TrimSpace(string(body))
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	msg = clip.Head(msg, maxMessage)
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		switch {
		case apiKey == "" && keySource != "":
			msg += "; no API key was sent (give one with " + keySource + ")"
		case apiKey == "":
			msg += "; no API key was sent"
		case keySource != "":
			msg += "; check the API key (from " + keySource + ")"
		default:
			msg += "; check the API key"
		}
	case http.StatusNotFound:
		msg += "; check the base URL (it usually ends in /v1) and the model name"
	}
	return msg
}

// jsonErrorText finds the message in a JSON error object.
func jsonErrorText(g gjson.Result) string {
	for _, path := range []string{"error.message", "error", "message", "detail"} {
		r := g.Get(path)
		switch {
		case r.Type == gjson.String:
			if s := strings.TrimSpace(r.String()); s != "" {
				return s
			}
		case r.IsObject() || r.IsArray():
			if path != "error" { // {"error":{…}} without a message: fall through to the whole
				return r.Raw
			}
		}
	}
	return strings.TrimSpace(g.Raw)
}

// isHTML reports whether a reply is a web page: by its media type, or
// when body is given, by how it begins.
func isHTML(contentType string, body []byte) bool {
	if contentType == "text/html" || contentType == "application/xhtml+xml" {
		return true
	}
	b := bytes.TrimLeft(body, " \t\r\n\xEF\xBB\xBF")
	return hasPrefixFold(b, "<!doctype html") || hasPrefixFold(b, "<html")
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && strings.EqualFold(string(b[:len(prefix)]), prefix)
}

// htmlMessage says that the server sent a web page, by its title rather
// than its markup.
func htmlMessage(page []byte) string {
	title := "no title"
	lower := bytes.ToLower(page)
	if i := bytes.Index(lower, []byte("<title")); i >= 0 {
		if j := bytes.IndexByte(lower[i:], '>'); j >= 0 {
			rest := page[i+j+1:]
			if k := bytes.Index(lower[i+j+1:], []byte("</title")); k >= 0 {
				rest = rest[:k]
			}
			if t := strings.Join(strings.Fields(html.UnescapeString(string(rest))), " "); t != "" {
				title = clip.Head(t, 120)
			}
		}
	}
	return "the server sent an HTML page (" + title + "), not an API reply"
}

// gate holds back every request of a backend while the server has asked,
// with Retry-After, one of them to wait: a server that sheds load says so
// to whichever request it refuses, and the requests of a batch share it.
// The zero gate lets everything through.
type gate struct {
	mu    sync.Mutex
	until time.Time // no new request before this
}

// hold keeps new requests back for d from now, or longer if already held.
func (g *gate) hold(d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if t := time.Now().Add(d); t.After(g.until) {
		g.until = t
	}
}

// remaining is how long new requests are still held back.
func (g *gate) remaining() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	return max(time.Until(g.until), 0)
}

// wait returns when the gate is open, or with ctx's error. A hold that
// was extended while it slept is waited out too.
func (g *gate) wait(ctx context.Context, sleep func(context.Context, time.Duration) error) error {
	for {
		g.mu.Lock()
		until := g.until
		g.mu.Unlock()
		d := time.Until(until)
		if d <= 0 {
			return ctx.Err()
		}
		if err := sleep(ctx, d); err != nil {
			return err
		}
		g.mu.Lock()
		extended := g.until.After(until)
		g.mu.Unlock()
		if !extended {
			return ctx.Err()
		}
	}
}
