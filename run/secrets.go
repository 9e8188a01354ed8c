package run

import (
	"bytes"
	"errors"
	"io"
	"net/url"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/internal/urlcred"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
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

// redactingWriter redacts each write of the transcript: whole event
// lines, whose strings are read as JSON and redacted (raw, and escaped
// within, as tools.Redactor.JSON does).
//
// A long stretch of the model's text (or reasoning) comes as several
// events, cut by size, and a secret may be cut with them: each half alone
// is not the secret. So such an event whose content ends with the start
// of a secret value is held back until the next line is seen; when that
// is an event of the same type, the secret across the two is replaced
// (tools.Redactor.Across) before either is written. Flush writes what is
// held at the end.
type redactingWriter struct {
	w    io.Writer
	r    *tools.Redactor
	held []byte // a text or reasoning event line, with its newline, waiting for the next
	out  []byte
}

func newRedactingWriter(w io.Writer, r *tools.Redactor) *redactingWriter {
	return &redactingWriter{w: w, r: r}
}

func (rw *redactingWriter) Write(p []byte) (int, error) {
	rw.out = rw.out[:0]
	for rest := p; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		rest = rest[len(line):]
		rw.line(line)
	}
	if len(rw.out) > 0 {
		if _, err := rw.w.Write(rw.out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// line redacts one line into rw.out, or holds it back.
func (rw *redactingWriter) line(line []byte) {
	content, kind := textContent(line)
	if rw.held != nil {
		held := rw.held
		rw.held = nil
		if before, heldKind := textContent(held); kind != "" && kind == heldKind {
			a, b := rw.r.Across(before.Str, content.Str)
			if a != before.Str {
				held = withContent(held, before, a)
				line = withContent(line, content, b)
				content, _ = textContent(line)
			}
		}
		rw.out = append(rw.out, rw.r.JSON(held)...)
	}
	if kind != "" && rw.r.MayContinue(content.Str) {
		rw.held = append([]byte(nil), line...)
		return
	}
	rw.out = append(rw.out, rw.r.JSON(line)...)
}

// Flush writes the line held back, if any.
func (rw *redactingWriter) Flush() error {
	if rw.held == nil {
		return nil
	}
	held := rw.held
	rw.held = nil
	_, err := rw.w.Write(rw.r.JSON(held))
	return err
}

// textContent is the content of a text or reasoning event line, and
// which of the two it is; kind is "" for any other line.
func textContent(line []byte) (content gjson.Result, kind string) {
	if !bytes.Contains(line, []byte(`"text"`)) && !bytes.Contains(line, []byte(`"reasoning"`)) {
		return gjson.Result{}, ""
	}
	kind = gjson.GetBytes(line, "type").Str
	if kind != event.TypeText && kind != event.TypeReasoning {
		return gjson.Result{}, ""
	}
	c := gjson.GetBytes(line, "content") // Index: where it is in line
	if c.Type != gjson.String || c.Index == 0 {
		return gjson.Result{}, ""
	}
	return c, kind
}

// withContent is line with its content, found at c, replaced by s.
func withContent(line []byte, c gjson.Result, s string) []byte {
	out := append([]byte(nil), line[:c.Index]...)
	out = jsonw.AppendString(out, s)
	return append(out, line[c.Index+len(c.Raw):]...)
}
