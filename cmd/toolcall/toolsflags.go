package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/run"
	"github.com/toolcall/toolcall/tools"
)

// toolsFlags are the flags of every command that reads tool directories:
// where the tools are, and the policy that says which may be called.
type toolsFlags struct {
	dirs        dirList  // --tools
	mcp         []string // --mcp
	skipInvalid bool     // --skip-invalid
	allow       []string // --allow
	deny        []string // --deny
	allowUnsafe bool     // --allow-unsafe
	localOnly   bool     // --local-only
	approve     []string // --approve
}

// addDirs defines --tools alone, for commands that read tools but apply no
// policy.
func (f *toolsFlags) addDirs(fs *pflag.FlagSet) {
	fs.Var(&f.dirs, "tools", "read tools from `dir`, or definitions from a file of them (repeatable; a colon-separated list like PATH also works)")
	fs.BoolVar(&f.skipInvalid, "skip-invalid", false, "load the valid tools and leave out, with a warning each, sidecars that are invalid (default: any invalid sidecar is an error)")
	fs.StringArrayVar(&f.mcp, "mcp", nil, "also take the tools of this MCP server: a `command` line, split at spaces and run without a shell, or the http:// URL of one running on this machine (repeatable)")
}

// addPolicy defines the policy flags.
func (f *toolsFlags) addPolicy(fs *pflag.FlagSet) {
	fs.StringSliceVar(&f.allow, "allow", nil, "only these `tools` may be used: names or globs like 'git_*' (repeatable, comma-separated)")
	fs.StringSliceVar(&f.deny, "deny", nil, "these `tools` may not be used: names or globs (repeatable, comma-separated; wins over --allow)")
	fs.BoolVar(&f.allowUnsafe, "allow-unsafe", false, "let tools marked \"safe\": false (side effects) be used")
	fs.BoolVar(&f.localOnly, "local-only", false, "leave out tools tagged \"network\"")
	fs.StringSliceVar(&f.approve, "approve", nil, "approve these `tools` (names or globs) for this run: unsafe ones, and those registered with no_schema_mode human-approval")
}

// completeNames completes tool names for --allow, --deny and --approve
// from the directories of --tools given so far, or TOOLCALL_TOOLS.
func (f *toolsFlags) completeNames(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	dirs := f.dirs
	if len(dirs) == 0 {
		dirs.Set(os.Getenv(envName("tools")))
	}
	if len(dirs) == 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	c, err := catalog.Load(dirs, catalog.LoadOptions{MCPDialer: run.DialMCP})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, t := range c.All() {
		if strings.HasPrefix(t.Name, toComplete) {
			out = append(out, cobra.CompletionWithDesc(t.Name, t.Description))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// registerCompletions completes the flags addDirs and addPolicy defined.
func (f *toolsFlags) registerCompletions(cmd *cobra.Command, policy bool) {
	must(cmd.MarkFlagDirname("tools"))
	if policy {
		for _, name := range []string{"allow", "deny", "approve"} {
			must(cmd.RegisterFlagCompletionFunc(name, f.completeNames))
		}
	}
}

// policy returns the policy the flags describe, or a usage error for a
// malformed glob.
func (f *toolsFlags) policy() (tools.Policy, error) {
	for _, list := range [][]string{f.allow, f.deny, f.approve} {
		for _, p := range list {
			if err := tools.CheckPattern(p); err != nil {
				return tools.Policy{}, usage(err)
			}
		}
	}
	return tools.Policy{
		Allow:       f.allow,
		Deny:        f.deny,
		AllowUnsafe: f.allowUnsafe,
		LocalOnly:   f.localOnly,
		Approved:    f.approve,
	}, nil
}

// noTools is the usage error of a command that needs tools and got none.
// No command looks in ./tools by itself, as a shell leaves "." out of
// PATH: programs are not taken from wherever one stands. When ./tools
// holds sidecars (where toolcall new writes), the error names it; in a
// clone of toolcall, whose ./tools is Go source, it names the example
// tools of testdata/tools instead.
func noTools() error {
	msg := "no tools: give --tools DIR (or --mcp COMMAND), or set TOOLCALL_TOOLS to a colon-separated list of directories"
	switch {
	case holdsSidecars(defaultToolsDir):
		msg += "; ./" + defaultToolsDir + " is here (toolcall new writes there): --tools " + defaultToolsDir
	case holdsSidecars(cloneToolsDir):
		msg += "; the example tools are here: --tools " + cloneToolsDir
		if _, err := os.Stat(filepath.Join(cloneToolsDir, "calculator")); err != nil {
			msg += " (make tools builds them)"
		}
	}
	return usage(errors.New(msg))
}

// defaultToolsDir is where toolcall new writes a tool when told nowhere;
// cloneToolsDir is where a clone of toolcall keeps its example tools.
const (
	defaultToolsDir = "tools"
	cloneToolsDir   = "testdata/tools"
)

// holdsSidecars reports whether dir is a directory with a *.json file
// in it, as a tools directory has and a directory of Go source has not.
func holdsSidecars(dir string) bool {
	m, err := filepath.Glob(filepath.Join(dir, "*.json"))
	return err == nil && len(m) > 0
}

// load reads the tool directories. A problem with them is a usage error
// (exit 2) that names each file; warnings go to stderr.
func (f *toolsFlags) load(stderr io.Writer) (*catalog.Catalog, error) {
	if len(f.dirs) == 0 && len(f.mcp) == 0 {
		return nil, noTools()
	}
	c, err := catalog.Load(f.dirs, f.loadOptions(stderr))
	if err != nil {
		return nil, &usageError{err: err}
	}
	return c, nil
}

// loadOptions are the options every command loads its tools with: MCP
// servers given by URL are reached through run's loopback-only dialer.
func (f *toolsFlags) loadOptions(stderr io.Writer) catalog.LoadOptions {
	return catalog.LoadOptions{Warn: warnTo(stderr), MCP: f.mcp, MCPDialer: run.DialMCP, SkipInvalid: f.skipInvalid}
}

// warnTo returns a function that writes warnings to stderr, one line each.
func warnTo(stderr io.Writer) func(string) {
	return func(msg string) { fmt.Fprintf(stderr, "toolcall: warning: %s\n", forStderr(msg, stderr)) }
}

// dirList is the value of --tools: directories, given one per flag or
// several separated by colons as in PATH and TOOLCALL_TOOLS.
type dirList []string

func (d *dirList) String() string { return strings.Join(*d, string(os.PathListSeparator)) }
func (d *dirList) Type() string   { return "dir" }

func (d *dirList) Set(s string) error {
	for _, dir := range strings.Split(s, string(os.PathListSeparator)) {
		if dir != "" {
			*d = append(*d, dir)
		}
	}
	return nil
}
