// Package redact replaces secrets in text, JSON and streams
// (docs/security.md, Secrets): the values of environment variables whose
// names look secret, the secrets a caller gathered (an API key, a
// password in a URL), the well-known credential formats, and the --redact
// expressions. Each becomes Marker.
//
// It knows nothing of tools, calls or events: its callers (the executor,
// the loop's transcript, the messages on stderr) hand it the strings and
// JSON they hold.
package redact

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/toolcall/toolcall/internal/unsafestr"
)

// Marker is what a secret becomes: in observations, scratch files, the
// transcript and messages.
const Marker = "[REDACTED]"

// minSecretLen is the shortest environment value treated as a secret:
// shorter values ("1", "true", "dev") are words that ordinary output
// holds, and replacing them would garble it.
const minSecretLen = 6

// Redactor replaces secrets in what toolcall writes (docs/security.md,
// Secrets): the values of environment variables whose names look secret
// (secretEnvName), the secrets given to New, the well-known credential
// formats (the cred* variables), and the --redact regular expressions. Each secret becomes Marker; for a bearer
// token only the token goes, for credentials in a URL only the password.
//
// A Redactor is safe for concurrent use. A nil *Redactor still removes the
// well-known credential formats, so forgetting one fails closed.
type Redactor struct {
	values []secretValue // secret values, longest first
	digits []string      // the values of digits alone, which a number may write (numberSpans)
	extra  []*regexp.Regexp
	// overlap is how much of a stream Copy keeps for the next read, so a
	// secret split across reads is still seen whole.
	overlap int
}

// New returns a Redactor for the secrets in environ ("NAME=value",
// as os.Environ gives; the parent's environment, not the tool's scrubbed
// one, so a key the tool found another way is still caught), the secret
// values given whatever their source (the API key in use, a password in a
// URL), and the extra expressions (--redact), whose every match is
// replaced. Values shorter than 6 bytes are not looked for: they are
// words ordinary output holds; nor are values of white space alone, which
// secret nothing and would eat the layout of any output.
func New(environ []string, extra []*regexp.Regexp, secrets ...string) *Redactor {
	r := &Redactor{extra: extra, overlap: pemWindow}
	seen := map[string]bool{}
	var add func(value string)
	add = func(value string) {
		if len(value) < minSecretLen || seen[value] || strings.TrimSpace(value) == "" {
			return
		}
		seen[value] = true
		v := newSecretValue(value)
		r.values = append(r.values, v)
		r.overlap = max(r.overlap, v.maxLen)
		// A key pasted with a blank around it is sent, and echoed back,
		// without: both forms are the secret.
		if t := strings.TrimSpace(value); t != value {
			add(t)
		}
	}
	for _, kv := range environ {
		if name, value, ok := strings.Cut(kv, "="); ok && secretEnvName(name) {
			add(value)
		}
	}
	for _, v := range secrets {
		add(v)
	}
	// Longest first, so a secret that contains another is replaced whole.
	slices.SortFunc(r.values, func(a, b secretValue) int {
		return cmp.Or(cmp.Compare(len(b.raw), len(a.raw)), strings.Compare(a.raw, b.raw))
	})
	r.digits = digitSecrets(r.values)
	return r
}

// SecretName reports whether a name (of an environment variable, or a key
// of a JSON object such as "api_key") says its value is a secret, by the
// rules secretEnvName states.
func SecretName(name string) bool { return secretEnvName(name) }

// Words in an environment variable's name that mark its value as secret.
var secretWords = map[string]bool{
	"KEY": true, "KEYS": true, "APIKEY": true, "TOKEN": true, "TOKENS": true,
	"SECRET": true, "SECRETS": true, "PASSWORD": true, "PASSWORDS": true,
	"PASSWD": true, "PASS": true, "PASSPHRASE": true, "CREDENTIAL": true,
	"CREDENTIALS": true, "CREDS": true, "AUTH": true, "PRIVATE": true,
	"COOKIE": true, "COOKIES": true,
}

// Last words that say the value is about a secret, not the secret: a
// file holding it, a socket, an identifier (SSH_AUTH_SOCK,
// GOOGLE_APPLICATION_CREDENTIALS_FILE, AWS_ACCESS_KEY_ID).
var notSecretLast = map[string]bool{
	"FILE": true, "PATH": true, "DIR": true, "SOCK": true, "SOCKET": true,
	"URL": true, "URI": true, "HOST": true, "PORT": true, "USER": true,
	"USERNAME": true, "NAME": true, "ID": true, "TYPE": true, "MODE": true,
	"METHOD": true, "ALG": true, "ALGORITHM": true, "LENGTH": true, "SIZE": true,
	"FORMAT": true, "TIMEOUT": true, "TTL": true, "EXPIRY": true, "REGION": true,
}

// Prefixes that make a word ending in KEY a key (APIKEY, ACCESSKEY), where
// MONKEY, HOTKEY and KEYBOARD are not.
var keyPrefixes = []string{"API", "ACCESS", "SECRET", "PRIVATE", "AUTH", "MASTER",
	"SIGNING", "ENCRYPTION", "ENC", "LICENSE", "SESSION", "CLIENT", "ADMIN", "SERVICE"}

// secretEnvName reports whether an environment variable's name says its
// value is a secret. The name is split into words at '_', '-' and '.', and
// looked at word by word, so that OPENAI_API_KEY, GITHUB_TOKEN, DB_PASS,
// DB_PWD, CLIENTSECRET and ACCESSTOKEN are secret while KEYBOARD,
// MONKEY, GIT_AUTHOR_NAME, XAUTHORITY, PWD, DESKTOP_SESSION and
// SSH_AUTH_SOCK are not. SESSION alone is not a marker: the desktop's
// session variables hold words like "ubuntu" that output is full of.
func secretEnvName(name string) bool {
	words := strings.FieldsFunc(strings.ToUpper(name), func(r rune) bool {
		return r == '_' || r == '-' || r == '.'
	})
	if len(words) == 0 || notSecretLast[words[len(words)-1]] {
		return false
	}
	for _, w := range words {
		switch {
		case secretWords[w]:
			return true
		case w == "PWD" && len(words) > 1: // DB_PWD; PWD alone is the directory
			return true
		case strings.HasSuffix(w, "TOKEN"), strings.HasSuffix(w, "SECRET"),
			strings.HasSuffix(w, "PASSWORD"), strings.HasSuffix(w, "PASSWD"),
			strings.HasPrefix(w, "PASSWORD"), strings.HasPrefix(w, "SECRET"):
			return true
		case strings.HasSuffix(w, "KEY"):
			p := strings.TrimSuffix(w, "KEY")
			if slices.Contains(keyPrefixes, p) {
				return true
			}
		}
	}
	return false
}

// span is a range of a text to replace.
type span struct{ start, end int }

// spans returns the sorted, merged ranges of s that hold secrets.
func (r *Redactor) spans(s string) []span {
	sp := scanCredentials(s, nil)
	if r != nil {
		sp = r.valueSpans(s, sp)
		sp = r.numberSpans(s, sp)
		if len(r.values) > 0 {
			sp = escapedSpans(r.values, s, sp)
			sp = cutSpans(r.values, s, sp)
		}
		for _, re := range r.extra {
			for _, m := range re.FindAllStringIndex(s, -1) {
				if m[1] > m[0] {
					sp = append(sp, span{m[0], m[1]})
				}
			}
		}
	}
	if len(sp) < 2 {
		return sp
	}
	slices.SortFunc(sp, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	return mergeSpans(sp)
}

// mergeSpans merges the overlapping spans of sp, sorted by start.
func mergeSpans(sp []span) []span {
	if len(sp) < 2 {
		return sp
	}
	out := sp[:1]
	for _, x := range sp[1:] {
		if y := &out[len(out)-1]; x.start <= y.end {
			y.end = max(y.end, x.end)
			continue
		}
		out = append(out, x)
	}
	return out
}

// valueSpans appends the spans of s that hold a secret value as it is.
func (r *Redactor) valueSpans(s string, sp []span) []span {
	for _, v := range r.values {
		for i := 0; ; {
			j := strings.Index(s[i:], v.raw)
			if j < 0 {
				break
			}
			sp = append(sp, span{i + j, i + j + len(v.raw)})
			i += j + len(v.raw)
		}
	}
	return sp
}

// appendRedacted appends s with the spans replaced.
func appendRedacted(dst []byte, s string, sp []span) []byte {
	at := 0
	for _, x := range sp {
		dst = append(dst, s[at:x.start]...)
		dst = append(dst, Marker...)
		at = x.end
	}
	return append(dst, s[at:]...)
}

// String returns s with each secret replaced by Marker; s itself when
// there is none.
func (r *Redactor) String(s string) string {
	sp := r.spans(s)
	if len(sp) == 0 {
		return s
	}
	b := appendRedacted(make([]byte, 0, len(s)), s, sp)
	return unsafestr.String(b)
}

// Bytes is String for a byte slice: b itself when there is no secret,
// else a new slice.
func (r *Redactor) Bytes(b []byte) []byte {
	s := unsafestr.String(b)
	sp := r.spans(s)
	if len(sp) == 0 {
		return b
	}
	return appendRedacted(make([]byte, 0, len(b)), s, sp)
}
