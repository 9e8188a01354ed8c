package redact

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/toolcall/toolcall/internal/unsafestr"
)

// Tail returns the last keep bytes of s with its secrets replaced, for
// the end of a stream shown on its own (a tool's stderr). s holds more
// than keep bytes before them (Window), so that a secret that starts
// before the shown window and ends inside it is seen, and replaced, whole,
// instead of showing as its last characters. The window moves back to
// keep a marker whole, and forward to start at a character.
func (r *Redactor) Tail(s string, keep int) string {
	red := r.String(s)
	if len(red) <= keep {
		return red
	}
	cut := len(red) - keep
	if i := strings.LastIndex(red[:min(len(red), cut+len(Marker)-1)], Marker); i >= 0 && i < cut && i+len(Marker) > cut {
		cut = i
	}
	for cut < len(red) && !utf8.RuneStart(red[cut]) {
		cut++
	}
	return red[cut:]
}

// minSplitPrefix is the shortest start of a secret value that
// MayContinue takes for one: a shorter one ends ordinary text too often,
// and shows too little of the secret to matter.
const minSplitPrefix = 4

// MayContinue reports whether s ends with the start of a secret value (at
// least minSplitPrefix bytes of it, not all), which the text that follows
// s could complete: a writer that cuts a stream into pieces (text events)
// holds such a piece back until it has seen the next (see Across).
func (r *Redactor) MayContinue(s string) bool {
	if r == nil {
		return false
	}
	for i := range r.values {
		if r.values[i].startsAtEnd(s) >= minSplitPrefix {
			return true
		}
	}
	return r.numberAtEnd(s)
}

// startsAtEnd is the length of the longest proper prefix of the secret
// that s ends with: a Knuth-Morris-Pratt scan of s's last len(raw) bytes
// with the border table, linear in the secret's length.
func (v *secretValue) startsAtEnd(s string) int {
	raw := v.raw
	s = s[max(0, len(s)-len(raw)):]
	if v.border == nil { // not UTF-8: no table; such values are rare
		for k := min(len(raw)-1, len(s)); k > 0; k-- {
			if strings.HasSuffix(s, raw[:k]) {
				return k
			}
		}
		return 0
	}
	q := int32(0)
	for i := 0; i < len(s); i++ {
		for q > 0 && raw[q] != s[i] {
			q = v.border[q-1]
		}
		if raw[q] == s[i] {
			q++
		}
		if int(q) == len(raw) { // the whole secret: not a start of one
			q = v.border[q-1]
		}
	}
	return int(q)
}

// Across returns a and b, two pieces of one stream, with a secret that
// starts in a and ends in b replaced: its part in a by Marker, its part
// in b removed. Each piece alone is not the secret, so redacting them one
// at a time would miss it. Secrets wholly inside a or b are left for the
// caller to redact as usual.
func (r *Redactor) Across(a, b string) (string, string) {
	if r == nil || a == "" || b == "" {
		return a, b
	}
	// Only a secret that reaches the cut matters: look at the longest
	// stretch on each side that one could span.
	n := r.overlap
	head, tail := a[max(0, len(a)-n):], b[:min(len(b), n)]
	joined := head + tail
	cut := len(head)
	for _, x := range r.spans(joined) {
		if x.start < cut && x.end > cut {
			return a[:len(a)-len(head)+x.start] + Marker, b[x.end-cut:]
		}
	}
	return a, b
}

// Window is the most bytes a well-known credential format may span (a
// private key in PEM): a caller that keeps the end of a stream to redact
// later keeps that much more before what it shows (Tail).
const Window = pemWindow

// Overlap is how much of a stream a caller that redacts it in pieces
// keeps from one piece to look at again with the next, as Copy does: more
// than any credential format or secret value of r spans, so one split
// across pieces is still seen whole.
func (r *Redactor) Overlap() int {
	if r == nil {
		return pemWindow
	}
	return r.overlap
}

// Cut is where a caller that redacts a stream in pieces ends the piece s
// when more is to come: Overlap bytes before its end, at a line end where
// it can, and never inside a secret, which goes whole into this piece.
// The rest is looked at again with the next piece, as Copy does.
func (r *Redactor) Cut(s string) int { return roundCut(s, r.spans(s), r.Overlap()) }

// copyChunk is how much Copy reads before it redacts and writes; its
// memory is bounded by copyChunk plus the overlap it keeps.
const copyChunk = 256 << 10

// Copy copies src to dst with secrets replaced, in bounded memory. A
// secret split across reads is still caught: each round keeps its last
// part (longer than any credential format or secret value) to look at
// again with what follows, and cuts at a line end where it can. A --redact
// expression matching more than that overlap may be missed across rounds.
func (r *Redactor) Copy(dst io.Writer, src io.Reader) error {
	overlap := r.Overlap()
	buf := make([]byte, 0, copyChunk+overlap)
	var out []byte
	eof := false
	for {
		for !eof && len(buf) < cap(buf) {
			n, err := src.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if errors.Is(err, io.EOF) {
				eof = true
			} else if err != nil {
				return fmt.Errorf("reading the output to redact: %w", err)
			}
		}
		s := unsafestr.String(buf)
		sp := r.spans(s)
		cut := len(s)
		if !eof {
			cut = roundCut(s, sp, overlap)
		}
		out = appendRedacted(out[:0], s[:cut], spansBefore(sp, cut))
		if _, err := dst.Write(out); err != nil {
			return fmt.Errorf("writing the redacted output: %w", err)
		}
		if eof {
			return nil
		}
		buf = buf[:copy(buf, buf[cut:])]
	}
}

// roundCut is where a round of Copy over s ends when more is to come:
// overlap before its end, at a line end where it can be (cutPoint), and
// never inside a secret, which is written whole now.
func roundCut(s string, sp []span, overlap int) int {
	cut := cutPoint(s, len(s)-overlap)
	for _, x := range sp {
		if x.start < cut && x.end > cut {
			cut = x.end
		}
	}
	return cut
}

// spansBefore is sp without the spans that start at cut or after it.
func spansBefore(sp []span, cut int) []span {
	keep := sp[:0]
	for _, x := range sp {
		if x.start < cut {
			keep = append(keep, x)
		}
	}
	return keep
}

// cutPoint is where a round of Copy ends: just after the last newline in
// the second half of s[:limit], else after the last byte there that can
// neither be inside a token nor lead up to one (blanks and '/' can: "Bearer
// x", "://user:pw@"), else limit. Looking only in the second half keeps
// every round long, so Copy stays linear.
func cutPoint(s string, limit int) int {
	half := limit / 2
	if i := strings.LastIndexByte(s[half:limit], '\n'); i >= 0 {
		return half + i + 1
	}
	for i := limit; i > half; i-- {
		if c := s[i-1]; !tokenChar[c] && c != ' ' && c != '\t' && c != '/' && c != ':' {
			return i
		}
	}
	return limit
}
