package tools

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/internal/unsafestr"
	"github.com/toolcall/toolcall/internal/urlcred"
	"github.com/toolcall/toolcall/tools/schema"
)

// Redacted is what a secret becomes in observations and scratch files.
const Redacted = "[REDACTED]"

// minSecretLen is the shortest environment value treated as a secret:
// shorter values ("1", "true", "dev") are words that ordinary output
// holds, and replacing them would garble it.
const minSecretLen = 6

// Redactor replaces secrets in tool output (docs/security.md, Secrets): the
// values of environment variables whose names look secret (secretEnvName),
// the well-known credential formats (the cred* variables), and the
// --redact regular expressions. Each secret becomes Redacted; for a bearer
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

// NewRedactor returns a Redactor for the secrets in environ ("NAME=value",
// as os.Environ gives; the parent's environment, not the tool's scrubbed
// one, so a key the tool found another way is still caught), the secret
// values given whatever their source (the API key in use, a password in a
// URL), and the extra expressions (--redact), whose every match is
// replaced. Values shorter than 6 bytes are not looked for: they are
// words ordinary output holds; nor are values of white space alone, which
// secret nothing and would eat the layout of any output.
func NewRedactor(environ []string, extra []*regexp.Regexp, secrets ...string) *Redactor {
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

// ServerSecrets are the passwords in the URLs of the MCP servers that run
// tools of set, as written and decoded: a server that echoes its URL, or
// a tool that reads it, must not show them.
func ServerSecrets(set ToolSet) []string {
	var out []string
	seen := map[*MCPServer]bool{}
	for _, name := range set.Names() {
		t, ok := set.Lookup(name)
		if !ok || t.Server == nil || seen[t.Server] || t.Server.URL == "" {
			continue
		}
		seen[t.Server] = true
		out = append(out, urlcred.Passwords(t.Server.URL)...)
	}
	return out
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

// A credential format. Each is looked for only where its prefix starts a
// run of token characters (see scanCredentials), and then matched
// anchored there against a bounded window, so ordinary text costs one
// table lookup per byte and never a regular expression.
type credential struct {
	re     func() *regexp.Regexp // compiled on first use: most runs never redact
	window int                   // bytes the match may span
	group  int                   // the submatch that is the secret; 0: all of it
	check  func(string) bool     // further test of the secret, nil: none
	// endAlone requires the match to end where a word ends: the fixed
	// length formats (AWS, Google) must not be the start of a longer word.
	endAlone bool
}

const (
	tokenWindow = 512
	pemWindow   = 16 << 10 // a 8192-bit RSA key in PEM is under 7 KiB
)

var (
	credOpenAI = &credential{ // OpenAI sk-, sk-proj-; Anthropic sk-ant-api03-
		re: lazyRegexp(`^sk-[A-Za-z0-9_-]{20,}`), window: tokenWindow,
		check: func(s string) bool { return mixed(s[3:]) },
	}
	credGitHub = &credential{ // ghp_ (classic), gho_, ghu_, ghs_, ghr_
		re: lazyRegexp(`^gh[pousr]_[A-Za-z0-9]{30,}`), window: tokenWindow,
	}
	credGitHubPAT = &credential{
		re: lazyRegexp(`^github_pat_[A-Za-z0-9_]{22,}`), window: tokenWindow,
	}
	credSlack = &credential{
		re: lazyRegexp(`^xox[abposr]-[A-Za-z0-9-]{10,}`), window: tokenWindow,
		check: hasDigit,
	}
	credAWS = &credential{ // access key ids; the secret key has no marker
		re: lazyRegexp(`^A(?:KIA|SIA)[A-Z0-9]{16}`), window: 20,
		check: hasDigit, endAlone: true,
	}
	credGoogle = &credential{
		re: lazyRegexp(`^AIza[0-9A-Za-z_-]{35}`), window: 39, endAlone: true,
	}
	credJWT = &credential{
		re:     lazyRegexp(`^eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{16,}`),
		window: 8 << 10,
	}
	// A private key block; when the output was cut before its END line,
	// the base64 lines that follow BEGIN go too.
	credPEM = &credential{
		re:     lazyRegexp(`(?s)^-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY-----|(?:(?:\r?\n|\\r?\\n)[A-Za-z0-9+/=]+)*)`),
		window: pemWindow,
	}
	// The END of a key block whose BEGIN was cut off (the tail of a
	// truncated output): the base64 lines before it go too (pemTail).
	credPEMEnd = &credential{
		re: lazyRegexp(`^-----END[A-Z0-9 ]*PRIVATE KEY-----`), window: 64,
	}
	// The token after "Bearer "; "Bearer " itself stays.
	credBearer = &credential{
		re: lazyRegexp(`^[A-Za-z0-9._~+/-]{16,}=*`), window: tokenWindow,
		check: func(s string) bool { return hasDigit(s) && hasLetter(s) },
	}
	// The password in scheme://user:password@host.
	credURL = &credential{
		re:     lazyRegexp(`^[^\s/:@"'<>]{1,128}:([^\s/@"'<>]{1,256})@`),
		window: 400, group: 1,
	}
)

// lazyRegexp compiles expr the first time it is needed, so a process
// that never redacts (toolcall --version, parse) does not pay for it
// at start.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// tokenChar marks the bytes that make up the tokens credentials are
// written in: [A-Za-z0-9_-].
var tokenChar = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
	}
	return t
}()

// candidate returns the credential format that may start at s[i], by its
// first bytes or what precedes it, or nil.
func candidate(s string, i int) *credential {
	rest := s[i:]
	switch s[i] {
	case 's':
		if strings.HasPrefix(rest, "sk-") {
			return credOpenAI
		}
	case 'g':
		if len(rest) > 4 && rest[1] == 'h' && rest[3] == '_' && strings.IndexByte("pousr", rest[2]) >= 0 {
			return credGitHub
		}
		if strings.HasPrefix(rest, "github_pat_") {
			return credGitHubPAT
		}
	case 'x':
		if strings.HasPrefix(rest, "xox") {
			return credSlack
		}
	case 'A':
		if strings.HasPrefix(rest, "AKIA") || strings.HasPrefix(rest, "ASIA") {
			return credAWS
		}
		if strings.HasPrefix(rest, "AIza") {
			return credGoogle
		}
	case 'e':
		if strings.HasPrefix(rest, "eyJ") {
			return credJWT
		}
	case '-':
		if strings.HasPrefix(rest, "-----BEGIN") {
			return credPEM
		}
		if strings.HasPrefix(rest, "-----END") {
			return credPEMEnd
		}
	}
	if i >= 3 && s[i-1] == '/' && s[i-2] == '/' && s[i-3] == ':' {
		return credURL
	}
	if afterBearer(s, i) {
		return credBearer
	}
	return nil
}

// afterBearer reports whether s[i] follows "Bearer" and blanks, in any case.
func afterBearer(s string, i int) bool {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j == i || j < 6 || !strings.EqualFold(s[j-6:j], "bearer") {
		return false
	}
	return j == 6 || !tokenChar[s[j-7]]
}

// match matches c at s[i], returning the secret's bounds.
func (c *credential) match(s string, i int) (start, end int, ok bool) {
	w := s[i:min(len(s), i+c.window)]
	m := c.re().FindStringSubmatchIndex(w)
	if m == nil {
		return 0, 0, false
	}
	start, end = i+m[2*c.group], i+m[2*c.group+1]
	if c.endAlone && end < len(s) && tokenChar[s[end]] && s[end] != '-' {
		return 0, 0, false
	}
	if c.check != nil && !c.check(s[start:end]) {
		return 0, 0, false
	}
	return start, end, true
}

// pemTail moves the start of an orphaned END line back over the base64
// lines (and the partial line) before it, but not before floor.
func pemTail(s string, start, floor int) int {
	for start > floor {
		j := start
		if s[j-1] == '\n' {
			j--
			if j > floor && s[j-1] == '\r' {
				j--
			}
		}
		k := j
		for k > floor && isBase64(s[k-1]) {
			k--
		}
		if k == j || k == start {
			return start
		}
		start = k
	}
	return start
}

func isBase64(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}

// scanCredentials appends the spans of well-known credentials in s. It
// looks at the start of every run of token characters and, inside a run,
// after each '-' or '_' (x-api-key-sk-...), which keeps "task-" or a hex
// hash from ever reaching a regular expression.
func scanCredentials(s string, spans []span) []span {
	last := 0 // the end of the last span; nothing inside it is looked at again
	n := len(s)
	for i := 0; i < n; {
		if !tokenChar[s[i]] {
			i++
			continue
		}
		if i >= last {
			if e, ok := tryAt(s, i, last, &spans); ok {
				last, i = e, e
				continue
			}
		}
		for i++; i < n && tokenChar[s[i]]; i++ {
			if p := s[i-1]; (p == '-' || p == '_') && i >= last {
				if e, ok := tryAt(s, i, last, &spans); ok {
					last, i = e, e-1
				}
			}
		}
	}
	return spans
}

func tryAt(s string, i, last int, spans *[]span) (int, bool) {
	c := candidate(s, i)
	if c == nil {
		return 0, false
	}
	start, end, ok := c.match(s, i)
	if !ok {
		return 0, false
	}
	if c == credPEMEnd {
		start = pemTail(s, start, last)
	}
	*spans = append(*spans, span{start, end})
	return end, true
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}

// mixed reports whether s has a digit, an upper and a lower case letter,
// as random keys do and slugs ("sk-learn-tutorial-part-two") do not.
func mixed(s string) bool {
	var d, u, l bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		d = d || c >= '0' && c <= '9'
		u = u || c >= 'A' && c <= 'Z'
		l = l || c >= 'a' && c <= 'z'
	}
	return d && u && l
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
		dst = append(dst, Redacted...)
		at = x.end
	}
	return append(dst, s[at:]...)
}

// String returns s with each secret replaced by Redacted; s itself when
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

// Tail returns the last keep bytes of s with its secrets replaced, for
// the end of a stream shown on its own (a tool's stderr). s holds more
// than keep bytes before them (stderrSlack), so that a secret that starts
// before the shown window and ends inside it is seen, and replaced, whole,
// instead of showing as its last characters. The window moves back to
// keep a marker whole, and forward to start at a character.
func (r *Redactor) Tail(s string, keep int) string {
	red := r.String(s)
	if len(red) <= keep {
		return red
	}
	cut := len(red) - keep
	if i := strings.LastIndex(red[:min(len(red), cut+len(Redacted)-1)], Redacted); i >= 0 && i < cut && i+len(Redacted) > cut {
		cut = i
	}
	for cut < len(red) && !utf8Start(red[cut]) {
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
// starts in a and ends in b replaced: its part in a by Redacted, its part
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
			return a[:len(a)-len(head)+x.start] + Redacted, b[x.end-cut:]
		}
	}
	return a, b
}

// copyChunk is how much Copy reads before it redacts and writes; its
// memory is bounded by copyChunk plus the overlap it keeps.
const copyChunk = 256 << 10

// Copy copies src to dst with secrets replaced, in bounded memory. A
// secret split across reads is still caught: each round keeps its last
// part (longer than any credential format or secret value) to look at
// again with what follows, and cuts at a line end where it can. A --redact
// expression matching more than that overlap may be missed across rounds.
func (r *Redactor) Copy(dst io.Writer, src io.Reader) error {
	overlap := pemWindow
	if r != nil {
		overlap = r.overlap
	}
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

// Result returns res with its secrets replaced: in Content, in every
// string (keys included) of Structured, in the text of Parts, and in the
// problems of a *schema.OutputError, which quote the result. The base64
// payloads of parts (an image's or audio's "data", a resource's "blob")
// are looked at as what they encode (see payload): random data can look
// like a key, and a file is changed only where it holds a secret.
func (r *Redactor) Result(res Result) Result {
	res.Content = r.String(res.Content)
	res.Structured = r.JSON(res.Structured)
	res.Parts = r.rewriteJSON(res.Parts, isPartPayload)
	if e, ok := res.SchemaErr.(*schema.OutputError); ok && e.Err == nil {
		c := *e
		c.Problems = make([]string, len(e.Problems))
		for i, p := range e.Problems {
			c.Problems[i] = r.String(p)
		}
		res.SchemaErr = &c
	}
	return res
}

// JSON returns the JSON text raw with secrets replaced in every string,
// object keys included; raw itself when there is none. What is not a
// string is kept byte for byte. A string with a secret is written anew
// (AppendString), so a secret written with escapes is caught too.
func (r *Redactor) JSON(raw []byte) []byte {
	return r.rewriteJSON(raw, nil)
}

// isPartPayload reports whether the keys leading to a string of an MCP
// content array ("" for an array element) name a base64 payload.
func isPartPayload(keys []string) bool {
	return len(keys) == 2 && keys[1] == "data" ||
		len(keys) == 3 && keys[1] == "resource" && keys[2] == "blob"
}

// payload redacts a base64 payload of an MCP content part: a secret
// value written as it is (a tool that put the key itself in "data"), and
// any secret in the bytes it decodes to, which are encoded again with the
// secret replaced. The well-known formats are not looked for in the base64
// text, where random bytes can spell one; they are in what it decodes to.
func (r *Redactor) payload(s string) string {
	if r != nil {
		sp := r.valueSpans(s, nil)
		if len(sp) > 0 {
			slices.SortFunc(sp, func(a, b span) int { return cmp.Compare(a.start, b.start) })
			return string(appendRedacted(nil, s, mergeSpans(sp)))
		}
	}
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return s
	}
	if red := r.Bytes(data); !bytes.Equal(red, data) {
		return base64.StdEncoding.EncodeToString(red)
	}
	return s
}

// rewriteJSON redacts the strings of raw, and the numbers (a secret of
// digits alone, given as a number), with the strings for which skip (when
// not nil) is true, given the keys that lead to them, taken as base64
// payloads (see payload).
func (r *Redactor) rewriteJSON(raw []byte, skip func(keys []string) bool) []byte {
	if len(raw) == 0 {
		return raw
	}
	// Most results hold no secret and no escape: one look at the whole
	// (not with --redact expressions, which may be anchored to a string).
	// Payloads are looked at decoded, which this look cannot do.
	payloads := skip != nil && (bytes.Contains(raw, []byte(`"data"`)) || bytes.Contains(raw, []byte(`"blob"`)))
	if !payloads && (r == nil || len(r.extra) == 0) && bytes.IndexByte(raw, '\\') < 0 && len(r.spans(unsafestr.String(raw))) == 0 {
		return raw
	}
	var out []byte
	at := 0
	var keys []string // per open container: its current key, "" in an array
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '{', '[':
			keys = append(keys, "")
			continue
		case '}', ']':
			if len(keys) > 0 {
				keys = keys[:len(keys)-1]
			}
			continue
		case '"':
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			end := i + 1
			for end < len(raw) && strings.IndexByte("0123456789+-.eE", raw[end]) >= 0 {
				end++
			}
			if num := unsafestr.String(raw[i:end]); r.String(num) != num {
				// Its digits hold a secret: the number becomes the marker,
				// a string; a reader sees a value replaced, not a number.
				out = append(out, raw[at:i]...)
				out = jsonw.AppendString(out, Redacted)
				at = end
			}
			i = end - 1
			continue
		default:
			continue
		}
		end, escaped := stringEnd(raw, i)
		if end < 0 {
			break // not JSON: keep the rest as it is
		}
		tok := raw[i:end]
		var s string
		if escaped {
			if json.Unmarshal(tok, &s) != nil {
				i = end - 1
				continue
			}
		} else {
			s = string(tok[1 : len(tok)-1])
		}
		isKey := isObjectKey(raw, end)
		if isKey && len(keys) > 0 {
			keys[len(keys)-1] = s
		}
		if !isKey && skip != nil && skip(keys) {
			if red := r.payload(s); red != s {
				out = append(out, raw[at:i]...)
				out = jsonw.AppendString(out, red)
				at = end
			}
		} else {
			if red := r.String(s); red != s {
				out = append(out, raw[at:i]...)
				out = jsonw.AppendString(out, red)
				at = end
			}
		}
		i = end - 1
	}
	if out == nil {
		return raw
	}
	return append(out, raw[at:]...)
}

// stringEnd returns the index just past the JSON string starting at
// raw[i] (a quote), and whether it has escapes; -1 when it never ends.
func stringEnd(raw []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(raw); {
		k := bytes.IndexAny(raw[j:], "\"\\")
		if k < 0 {
			return -1, escaped
		}
		j += k
		if raw[j] == '"' {
			return j + 1, escaped
		}
		escaped = true
		j += 2
	}
	return -1, escaped
}

// isObjectKey reports whether the string ending at raw[end] is an object
// key: the next token is a colon.
func isObjectKey(raw []byte, end int) bool {
	for ; end < len(raw); end++ {
		switch raw[end] {
		case ' ', '\t', '\n', '\r':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}

// Observation returns o with secrets replaced in everything it says: its
// id and name (as the model wrote them), its content, and its error's
// message and details. Parts and Structured come only from a tool's
// result, which Result redacts (keeping base64 payloads whole), and are
// kept as they are.
func (r *Redactor) Observation(o Observation) Observation {
	o.ID, o.Name, o.Content = r.String(o.ID), r.String(o.Name), r.String(o.Content)
	if e := o.Error; e != nil {
		c := *e
		c.Message = r.String(e.Message)
		c.Details = r.JSON(e.Details)
		o.Error = &c
	}
	return o
}
