// Package urlcred keeps the credentials a URL may carry
// ("user:password@") out of messages: both run (the model server's URL)
// and tools (an MCP server's) name URLs in errors. It imports nothing of
// toolcall's.
package urlcred

import (
	"net/url"
	"strings"
)

// Strip is raw as messages show it: without the userinfo, which is a
// credential. A URL that does not parse has its userinfo cut out all the
// same.
func Strip(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		if u.User == nil {
			return raw
		}
		u.User = nil
		return u.String()
	}
	_, userinfo, _, ok := Split(raw)
	if !ok {
		return raw
	}
	return strings.Replace(raw, userinfo+"@", "", 1)
}

// Split finds the userinfo of a URL by hand (it may not parse): between
// "://" and the last "@" of the authority.
func Split(raw string) (scheme, userinfo, rest string, ok bool) {
	scheme, after, found := strings.Cut(raw, "://")
	if !found {
		return "", "", "", false
	}
	authority := after
	if i := strings.IndexAny(after, "/?#"); i >= 0 {
		authority = after[:i]
	}
	at := strings.LastIndexByte(authority, '@')
	if at < 0 {
		return "", "", "", false
	}
	return scheme, after[:at], after[at+1:], true
}

// Passwords are the password of raw's userinfo as written and, when it is
// percent-encoded, as decoded: a server may echo either, and a redactor
// must know both.
func Passwords(raw string) []string {
	var out []string
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			out = append(out, pw)
		}
	}
	if _, userinfo, _, ok := Split(raw); ok {
		if _, pw, ok := strings.Cut(userinfo, ":"); ok && (len(out) == 0 || out[0] != pw) {
			out = append(out, pw)
		}
	}
	return out
}
