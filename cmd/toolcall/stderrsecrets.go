package main

import (
	"os"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/termsafe"
	"github.com/toolcall/toolcall/internal/urlcred"
	"github.com/toolcall/toolcall/tools"
)

// forStderr makes a message that may quote outside text or the command
// line fit to print: the secrets of the environment and of args replaced
// (an error may echo a flag's value: a base URL that did not parse, an
// --extra that is not an object, a recorded prompt that differs), and
// what is left escaped for the terminal. Errors are printed here, at the
// top, so no code path below has to remember it.
func forStderr(msg string, args []string) string {
	return termsafe.Line(tools.NewRedactor(os.Environ(), nil, argSecrets(args)...).String(msg))
}

// argSecrets are the credentials given on the command line: the value of
// --api-key, the password of any URL (also one written without "//",
// which does not parse as one), and the string values that --extra gives
// under a key named like a secret (api_key, token).
func argSecrets(args []string) []string {
	var out []string
	for i, a := range args {
		name, value, hasValue := strings.Cut(a, "=")
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		switch name {
		case "--api-key":
			out = append(out, value)
		case "--extra":
			out = append(out, extraSecrets(gjson.Parse(value), 0)...)
		}
		out = append(out, urlcred.Passwords(a)...)
		if pw := bareUserinfoPassword(a); pw != "" {
			out = append(out, pw)
		}
	}
	return out
}

// bareUserinfoPassword is the password of "user:password@host/..." given
// without a scheme, or "".
func bareUserinfoPassword(s string) string {
	if strings.Contains(s, "://") {
		return ""
	}
	if _, v, ok := strings.Cut(s, "="); ok { // --base-url=user:pw@host
		s = v
	}
	authority, _, _ := strings.Cut(s, "/")
	at := strings.LastIndexByte(authority, '@')
	if at < 0 {
		return ""
	}
	_, pw, _ := strings.Cut(authority[:at], ":")
	return pw
}

// extraSecrets collects the strings under secret-looking keys of v.
func extraSecrets(v gjson.Result, depth int) []string {
	var out []string
	if depth > 16 || !v.IsObject() && !v.IsArray() {
		return nil
	}
	v.ForEach(func(k, val gjson.Result) bool {
		if val.Type == gjson.String && k.Type == gjson.String && tools.SecretName(k.Str) {
			out = append(out, val.Str)
		}
		out = append(out, extraSecrets(val, depth+1)...)
		return true
	})
	return out
}
