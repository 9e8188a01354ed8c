package tools

import (
	"slices"
	"strings"
)

// Environ returns the scrubbed environment a tool runs with (docs/exec.md),
// as "NAME=value" entries sorted by name. From parent it keeps only PATH,
// HOME, LANG, LC_*, TZ and TMPDIR, the names in extra (--env) and the names
// in the tool's sidecar env list; everything else, API keys included, stays
// behind. It adds TOOLCALL_TOOL and TOOLCALL_CALL_ID, which a tool can
// neither inherit nor be given under another value.
//
// A name that parent lacks is left out rather than set empty, so that a tool
// can tell "not given" from "given empty". Where parent repeats a name the
// last entry wins, as for the shell.
func Environ(parent []string, t *Tool, callID string, extra []string) []string {
	allowed := make(map[string]bool, len(extra)+8)
	for _, n := range extra {
		allowed[n] = true
	}
	name := ""
	if t != nil {
		name = t.Name
		for _, n := range t.Env {
			allowed[n] = true
		}
	}
	kept := make(map[string]string)
	for _, kv := range parent {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue // not a variable; some platforms list "=C:" and the like
		}
		if k == "TOOLCALL_TOOL" || k == "TOOLCALL_CALL_ID" {
			continue
		}
		if allowed[k] || baseEnvName(k) {
			kept[k] = v
		}
	}
	kept["TOOLCALL_TOOL"] = name
	kept["TOOLCALL_CALL_ID"] = callID

	env := make([]string, 0, len(kept))
	for k, v := range kept {
		env = append(env, k+"="+v)
	}
	// Sorted by name so that a dry run shows the same thing every time.
	slices.SortFunc(env, func(a, b string) int {
		an, _, _ := strings.Cut(a, "=")
		bn, _, _ := strings.Cut(b, "=")
		return strings.Compare(an, bn)
	})
	return env
}

// baseEnvName reports whether every tool gets the variable: what a program
// needs to find executables, files and the user's locale and time zone.
func baseEnvName(k string) bool {
	switch k {
	case "PATH", "HOME", "LANG", "TZ", "TMPDIR":
		return true
	}
	return strings.HasPrefix(k, "LC_")
}
