package tools

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/internal/phrase"
)

// Readers of one sidecar value each: a timeout, a count of retries, the
// examples, a platform, a string, a boolean, a list; each reports what is
// wrong through fail, in words that name the key.

// checkPlatform checks a "platforms" entry: GOOS or GOOS/GOARCH, as Go
// spells them, so a typo does not hide a tool everywhere.
func checkPlatform(p string) string {
	goos, goarch, hasArch := strings.Cut(p, "/")
	if !slices.Contains(knownOS, goos) {
		return "unknown operating system " + strconv.Quote(goos) + "; use Go's names: " + strings.Join(knownOS, ", ")
	}
	if hasArch && !slices.Contains(knownArch, goarch) {
		return "unknown architecture " + strconv.Quote(goarch) + "; use Go's names: " + strings.Join(knownArch, ", ")
	}
	return ""
}

var (
	knownOS   = []string{"aix", "android", "darwin", "dragonfly", "freebsd", "illumos", "ios", "js", "linux", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows"}
	knownArch = []string{"386", "amd64", "arm", "arm64", "loong64", "mips", "mips64", "mips64le", "mipsle", "ppc64", "ppc64le", "riscv64", "s390x", "wasm"}
)

// timeout reads a Go duration ("20s", "1m30s") or a number of seconds.
func timeout(v gjson.Result, fail func(string, ...any)) time.Duration {
	var d time.Duration
	switch {
	case !v.Exists() || v.Type == gjson.Null:
		return 0
	case v.Type == gjson.Number:
		d = time.Duration(v.Num * float64(time.Second))
	case v.Type == gjson.String:
		var err error
		if d, err = time.ParseDuration(v.Str); err != nil {
			fail(`"timeout" %q is not a duration; write it like "20s" or "2m", or as a number of seconds`, v.Str)
			return 0
		}
	default:
		fail(`"timeout" must be a duration like "20s" or a number of seconds, found %s`, phrase.Describe(v))
		return 0
	}
	if d < 0 {
		fail(`"timeout" %s is negative; give a positive duration, or leave it out for the default`, v.Raw)
		return 0
	}
	return d
}

// retries reads "retries": how often a safe tool is run again after it
// failed, a whole number from 0 to MaxRetries. A tool with side effects
// is never run again, so asking for it is a mistake in the sidecar.
func retries(v gjson.Result, safe bool, fail func(string, ...any)) (int, bool) {
	if !v.Exists() || v.Type == gjson.Null {
		return 0, false
	}
	n, err := strconv.Atoi(v.Raw)
	switch {
	case v.Type != gjson.Number || err != nil:
		fail(`"retries" must be a whole number of retries from 0 to %d, found %s`, MaxRetries, phrase.Describe(v))
		return 0, false
	case n < 0 || n > MaxRetries:
		fail(`"retries" %d is out of range; give a number from 0 to %d`, n, MaxRetries)
		return 0, false
	case n > 0 && !safe:
		fail(`"retries" %d on a tool with side effects: such a tool is never run twice for one call; remove "retries", or mark the tool "safe": true if running it again does no harm`, n)
		return 0, false
	}
	return n, true
}

// examples reads "examples": each entry is {"arguments": {...}} (optionally
// with "description", "title" or "output" beside it), or the arguments object
// itself.
func examples(v gjson.Result, fail func(string, ...any)) (args [][]byte, requests []string) {
	if !v.Exists() || v.Type == gjson.Null {
		return nil, nil
	}
	if !v.IsArray() {
		fail(`"examples" must be an array of argument objects, found %s`, phrase.Describe(v))
		return nil, nil
	}
	i, anyRequest := 0, false
	v.ForEach(func(_, e gjson.Result) bool {
		a, request := e, ""
		if e.IsObject() && isWrapper(e) {
			a = e.Get("arguments")
			if a.Type == gjson.String && gjson.Valid(a.Str) {
				a = gjson.Parse(a.Str) // OpenAI writes arguments as a JSON string
			}
			if r := e.Get("request"); r.Exists() && r.Type != gjson.String {
				fail(`"examples"[%d].request must be a string: a request a person might make, found %s`, i, phrase.Describe(r))
			} else {
				request = r.Str
			}
		}
		if !a.IsObject() {
			fail(`"examples"[%d] must be an arguments object or {"arguments": {...}}, found %s`, i, phrase.Describe(a))
		} else {
			args = append(args, compact(a.Raw))
			requests = append(requests, request)
			anyRequest = anyRequest || request != ""
		}
		i++
		return true
	})
	if !anyRequest {
		requests = nil
	}
	return args, requests
}

// isWrapper reports whether an example is {"arguments": ...} plus notes,
// rather than the arguments themselves.
func isWrapper(e gjson.Result) bool {
	wrapper := false
	e.ForEach(func(k, _ gjson.Result) bool {
		switch k.Str {
		case "arguments":
			wrapper = true
		case "description", "title", "output", "result", "comment", "request":
		default:
			wrapper = false
			return false
		}
		return true
	})
	return wrapper
}

func str(v gjson.Result, key string, fail func(string, ...any)) string {
	if !v.Exists() || v.Type == gjson.Null {
		return ""
	}
	if v.Type != gjson.String {
		fail("%q must be a string, found %s", key, phrase.Describe(v))
		return ""
	}
	return v.Str
}

func boolean(v gjson.Result, key string, def bool, fail func(string, ...any)) bool {
	switch v.Type {
	case gjson.True:
		return true
	case gjson.False:
		return false
	}
	if v.Exists() && v.Type != gjson.Null {
		fail("%q must be true or false, found %s", key, phrase.Describe(v))
	}
	return def
}

// stringList reads an array of non-empty strings.
func stringList(v gjson.Result, key string, fail func(string, ...any)) []string {
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		fail("%q must be an array of strings, found %s", key, phrase.Describe(v))
		return nil
	}
	var out []string
	v.ForEach(func(_, e gjson.Result) bool {
		if e.Type != gjson.String || e.Str == "" {
			fail("%q must hold non-empty strings, found %s", key, phrase.Describe(e))
			return true
		}
		out = append(out, e.Str)
		return true
	})
	return out
}

// compact returns raw JSON without insignificant space, so it fits on one
// JSONL line; key order and every value are kept as written.
func compact(raw string) []byte {
	return jsonw.AppendCompact(make([]byte, 0, len(raw)), raw)
}

func or(a, b gjson.Result) gjson.Result {
	if a.Exists() {
		return a
	}
	return b
}

func last(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, " and ")
}

// unjoin splits an errors.Join result into its parts.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
