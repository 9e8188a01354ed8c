package redact

import (
	"regexp"
	"strings"
	"sync"
)

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
