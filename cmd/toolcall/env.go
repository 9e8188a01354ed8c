package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// envPrefix begins the environment variable of every flag.
const envPrefix = "TOOLCALL_"

// noEnvAnnotation marks a flag that asks for an action rather than holding
// a setting, and so has no environment variable.
const noEnvAnnotation = "toolcall_no_env"

// fromEnvAnnotation marks a flag that applyEnv set from its variable, so
// that a message can name where a value came from.
const fromEnvAnnotation = "toolcall_from_env"

// envName is the environment variable of the flag named flag:
// no-repair -> TOOLCALL_NO_REPAIR.
func envName(flag string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// envAnnotation holds the environment variable of a flag whose name means
// different things in different subcommands: one variable has one
// meaning, so each meaning gets its own (TOOLCALL_PARSE_FORMAT,
// TOOLCALL_CATALOG_FORMAT).
const envAnnotation = "toolcall_env"

// flagEnv is the environment variable of f: its own, else envName's.
func flagEnv(f *pflag.Flag) string {
	if v := f.Annotations[envAnnotation]; len(v) == 1 {
		return v[0]
	}
	return envName(f.Name)
}

// envAs gives the flag named name of fs the environment variable v.
func envAs(fs *pflag.FlagSet, name, v string) {
	if err := fs.SetAnnotation(name, envAnnotation, []string{v}); err != nil {
		panic(err) // a typo in a flag name: a bug
	}
}

// retiredEnv are variables no longer read because they meant different
// things to different subcommands, or one flag took the place of two,
// with what replaced them.
var retiredEnv = map[string]string{
	"TOOLCALL_FORMAT":      "TOOLCALL_PARSE_FORMAT (parse --format) or TOOLCALL_CATALOG_FORMAT (catalog --format)",
	"TOOLCALL_TIMEOUT":     "TOOLCALL_TOOL_TIMEOUT (exec --timeout, run --tool-timeout) or TOOLCALL_RUN_TIMEOUT (run --timeout)",
	"TOOLCALL_MCP_VERBOSE": "TOOLCALL_VERBOSE (-v, which every command takes now)",
}

// warnRetiredEnv says, once per variable, that a retired variable set in
// the environment is not read, so that it is not ignored silently.
func warnRetiredEnv(lookup func(string) (string, bool), warn func(string)) {
	for _, name := range []string{"TOOLCALL_FORMAT", "TOOLCALL_TIMEOUT", "TOOLCALL_MCP_VERBOSE"} {
		if v, ok := lookup(name); ok && v != "" {
			warn(fmt.Sprintf("%s is not read: one variable has one meaning, so set %s instead", name, retiredEnv[name]))
		}
	}
}

// hasEnv reports whether f can be set from the environment.
func hasEnv(f *pflag.Flag) bool {
	if f.Name == "help" || f.Name == "version" {
		return false
	}
	_, no := f.Annotations[noEnvAnnotation]
	return !no
}

// applyEnv sets every flag of fs that was not given on the command line from
// its environment variable, if that is set and not empty. A value the flag
// rejects is a usage error naming the variable.
func applyEnv(fs *pflag.FlagSet, lookup func(string) (string, bool)) error {
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		if err != nil || f.Changed || !hasEnv(f) {
			return
		}
		name := flagEnv(f)
		v, ok := lookup(name)
		if !ok || v == "" {
			return
		}
		if f.Value.Type() == "bool" {
			v = envBool(v)
		}
		// f.Value.Set rather than fs.Set, whose error names the flag.
		if serr := f.Value.Set(v); serr != nil {
			if problem, ok := numberProblem(f.Value, serr); ok && f.Value.Type() != "bool" {
				err = usage(fmt.Errorf("%s: %q %s", name, v, problem))
			} else if f.Value.Type() == "bool" {
				err = usage(fmt.Errorf("invalid value %q for %s: want true, 1, yes or on, or false, 0, no or off", v, name))
			} else {
				err = usage(fmt.Errorf("invalid value %q for %s: %v", v, name, serr))
			}
			return
		}
		f.Changed = true
		if serr := fs.SetAnnotation(f.Name, fromEnvAnnotation, []string{name}); serr != nil {
			err = serr
		}
	})
	return err
}

// envBool reads the yes and no a variable may say as the true and false
// a flag takes: TOOLCALL_QUIET=yes is as plain as TOOLCALL_QUIET=1.
func envBool(v string) string {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "yes", "y", "on":
		return "true"
	case "no", "n", "off":
		return "false"
	}
	return v
}

// source names where the value of the flag named name came from: the
// flag, its environment variable, or "" when it was not set.
func source(fs *pflag.FlagSet, name string) string {
	f := fs.Lookup(name)
	switch {
	case f == nil || !f.Changed:
		return ""
	case len(f.Annotations[fromEnvAnnotation]) > 0:
		return f.Annotations[fromEnvAnnotation][0]
	}
	return "--" + name
}

// noEnv marks the flag named name of fs as having no environment variable.
func noEnv(fs *pflag.FlagSet, name string) {
	if err := fs.SetAnnotation(name, noEnvAnnotation, []string{"true"}); err != nil {
		panic(err) // a typo in a flag name: a bug
	}
}
