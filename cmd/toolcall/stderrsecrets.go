package main

import (
	"io"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/termsafe"
	"github.com/toolcall/toolcall/internal/urlcred"
	"github.com/toolcall/toolcall/tools/redact"
)

// messageStream is the stderr of one invocation, with the redactor its
// messages go through (forStderr): the secrets of the environment and of
// the parsed flags, gathered once, when the flags have been read and the
// environment has filled them in (root's PersistentPreRunE), or, when
// reading them failed, from what was read (execute).
type messageStream struct {
	io.Writer
	mu      sync.Mutex
	secrets []string         // the flags' (flagSecrets)
	r       *redact.Redactor // nil until gathered
}

// gather builds the stream's redactor from cmd's flags, once; cmd nil
// (no command was found) gives the environment's secrets alone.
func (s *messageStream) gather(cmd *cobra.Command) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.r == nil {
		s.secrets = flagSecrets(cmd)
		s.r = redact.New(os.Environ(), nil, s.secrets...)
	}
}

// flagSecretsOf are the secrets gathered from the flags of the
// invocation whose stderr is w, for the redactor of what the command
// writes (tools.ExecOptions.Secrets); none for a writer that is no
// invocation's stream.
func flagSecretsOf(w io.Writer) []string {
	s, ok := w.(*messageStream)
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.secrets
}

// redactor is the stream's redactor; before the flags are read, or for a
// writer that is no invocation's stream (s nil), the environment's.
func (s *messageStream) redactor() *redact.Redactor {
	if s != nil {
		s.mu.Lock()
		r := s.r
		s.mu.Unlock()
		if r != nil {
			return r
		}
	}
	return redact.New(os.Environ(), nil)
}

// forStderr makes a message that may quote outside text or the command
// line fit to print on stderr, an invocation's messageStream: the secrets
// of the environment and of the flags replaced (an error may echo a
// flag's value: a base URL that did not parse, an --extra that is not an
// object, a recorded prompt that differs), and what is left escaped for
// the terminal. Errors are printed here, at the top, so no code path
// below has to remember it.
func forStderr(msg string, stderr io.Writer) string {
	s, _ := stderr.(*messageStream)
	return termsafe.Line(s.redactor().String(msg))
}

// flagSecrets are the credentials given to cmd, as its flags hold them
// once parsed and filled in from the environment, and its arguments: the
// value of --api-key, the password of any URL (also one written without
// "//", which does not parse as one), and the string values that --extra
// gives under a key named like a secret (api_key, token).
func flagSecrets(cmd *cobra.Command) []string {
	if cmd == nil {
		return nil
	}
	var out []string
	urls := func(v string) {
		out = append(out, urlcred.Passwords(v)...)
		if pw := bareUserinfoPassword(v); pw != "" {
			out = append(out, pw)
		}
	}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		values := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			values = sv.GetSlice()
		}
		for _, v := range values {
			switch f.Name {
			case "api-key":
				out = append(out, v)
			case "extra":
				out = append(out, extraSecrets(gjson.Parse(v), 0)...)
			}
			urls(v)
		}
	})
	for _, a := range cmd.Flags().Args() {
		urls(a)
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
		if val.Type == gjson.String && k.Type == gjson.String && redact.SecretName(k.Str) {
			out = append(out, val.Str)
		}
		out = append(out, extraSecrets(val, depth+1)...)
		return true
	})
	return out
}
