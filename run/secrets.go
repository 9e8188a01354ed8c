package run

import (
	"bytes"
	"errors"
	"net/url"

	"github.com/toolcall/toolcall/internal/unsafestr"
	"github.com/toolcall/toolcall/internal/urlcred"
	"github.com/toolcall/toolcall/tools/event"
	"github.com/toolcall/toolcall/tools/redact"
)

// DisplayURL is raw as messages show it: without the userinfo
// ("user:password@"), which is a credential.
func DisplayURL(raw string) string { return urlcred.Strip(raw) }

// withoutURL is err without the URL a *url.Error quotes, which may hold
// a password: the message names the URL itself, as DisplayURL shows it.
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// Secrets are the credentials of opts that no output may show: the API
// key, and the password of the base URL as written and decoded. Give them
// to the redactor (tools.ExecOptions.Secrets), which Loop applies to the
// whole transcript.
func Secrets(opts HTTPOptions) []string {
	var out []string
	if opts.APIKey != "" {
		out = append(out, opts.APIKey)
	}
	return append(out, urlcred.Passwords(opts.BaseURL)...)
}

// redactingSink is the filter every event of the transcript goes
// through before it reaches a sink at the edge (the JSONL encoder, the
// view, a recording): it hands on each event with every string it holds
// redacted (fields, arguments, content; JSON values as
// redact.Redactor.JSON redacts them, raw and escaped within), a copy when
// anything changed, the event itself when nothing did.
//
// A long stretch of the model's text (or reasoning) comes as several
// events, cut by size, and a secret may be cut with them: each half alone
// is not the secret. So such an event whose content ends with the start
// of a secret value is held back until the next event is seen; when that
// is an event of the same type, the secret across the two is replaced
// (redact.Redactor.Across) before either goes on. Flush hands on what is
// held at the end, then flushes the sink after it.
type redactingSink struct {
	next event.Sink
	r    *redact.Redactor
	held *event.TextEvent // a text or reasoning event, a copy of its own, waiting for the next
}

func newRedactingSink(next event.Sink, r *redact.Redactor) *redactingSink {
	return &redactingSink{next: next, r: r}
}

func (rs *redactingSink) Emit(e event.Event) error {
	t, _ := e.(*event.TextEvent)
	if t != nil && t.Type != event.TypeText && t.Type != event.TypeReasoning {
		t = nil // an answer is not cut by size
	}
	if rs.held != nil {
		held := rs.held
		rs.held = nil
		if t != nil && t.Type == held.Type {
			a, b := rs.r.Across(unsafestr.String(held.Content), unsafestr.String(t.Content))
			if a != unsafestr.String(held.Content) {
				held.Content = []byte(a)
				c := *t
				c.Content = []byte(b)
				t, e = &c, &c
			}
		}
		if err := rs.next.Emit(redactEvent(rs.r, held)); err != nil {
			return err
		}
	}
	if t != nil && rs.r.MayContinue(unsafestr.String(t.Content)) {
		// A copy: the caller may reuse the event once Emit returns.
		c := *t
		c.Content = bytes.Clone(t.Content)
		rs.held = &c
		return nil
	}
	return rs.next.Emit(redactEvent(rs.r, e))
}

// Flush hands on the event held back, if any, and flushes the next sink.
func (rs *redactingSink) Flush() error {
	if held := rs.held; held != nil {
		rs.held = nil
		if err := rs.next.Emit(redactEvent(rs.r, held)); err != nil {
			return err
		}
	}
	return rs.next.Flush()
}
