package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolcall/toolcall/internal/editdist"
)

// The root command's Long is rootDescription, then exitStatusText and
// environmentText under headings. The man pages carry the last two as the
// EXIT STATUS and ENVIRONMENT sections of every page (see docs_test.go).
const rootDescription = `toolcall gives text-only language models (MLX, llama.cpp, vLLM, Ollama, any
OpenAI-compatible server, or any command that prints text) tool use from the
shell. Each subcommand is a pipeline stage: it reads model output or JSON
from files or standard input and writes JSONL to standard output, one
complete JSON object per line, each with a "type", written the moment it is
complete. A stage passes the lines it does not own through unchanged:

    toolcall parse reply.txt | toolcall validate --tools ./tools

Tools are executables with a JSON sidecar holding their schema, in one or
more directories (--tools, or TOOLCALL_TOOLS), or the tools of MCP servers
(--mcp, or a sidecar holding "mcp_server"); catalog lists and renders
them, validate checks calls against them, exec runs the calls that pass,
run is the whole loop against a model, and mcp serve offers the tools to
MCP clients.

The events, with their fields beyond "type":

    tool              name, description, input_schema, command, mcp_source
                      (an MCP server's tool), safe, tags, timeout; score
                      and reason when ranked (catalog)
    text              content: prose outside any call; format on Command
                      R's directly_answer pseudo-call, not a call (parse)
    reasoning         content (a <think>-style block, never searched for
                      calls), format (parse)
    tool_call         id, name, arguments (always an object), format,
                      repaired, repairs (parse); validated, no_schema_mode,
                      coerced, normalized (validate)
    final_answer      content (parse)
    parse_error       error, raw (the text that failed), offset, format
                      (parse)
    tool_observation  id, name, content (what the model will read),
                      is_error, status, error {kind, message, details}
                      (validate, exec); parts, structured_content,
                      exit_code, signal, duration_ms, truncated, ref (exec)

run adds system, user, assistant (content, model, usage, duration_ms) and
stop (reason, iterations) around them; with --batch every event has its
request first, a summary (request, reason, iterations, calls,
duration_ms, error) follows each transcript and a batch event (the
totals) ends the stream; a bulk --check writes check (file, status,
difference or error) and batch events.

Problems with the model's output are data in the stream, not failures, so
a loop can show the model its mistake.

The whole manual is README.md and docs/ in the source; make install puts
them in PREFIX/share/doc/toolcall (/usr/local/share/doc/toolcall by
default).`

const exitStatusText = `    0    the command did its job (parse errors and failed calls are events,
         not failures)
    1    the program failed, or --fail was given and an error event was
         written; for run, no final answer was reached, or --check found a
         difference
    2    the invocation is wrong: a bad flag, argument, environment variable
         or input file, an unreadable tools directory or an invalid sidecar;
         standard error says which, and how to fix it
    130  interrupted with Ctrl-C
    141  standard output was closed early, as in "toolcall parse | head -1"
    143  exec or run was stopped by SIGTERM, after it stopped its tools (130
         for SIGINT likewise)`

const environmentText = `Every flag can also be set with an environment variable named TOOLCALL_
and the flag's name in upper case with dashes as underscores, for example
TOOLCALL_NO_REPAIR=1. One variable has one meaning: where a flag means
different things in different commands, the variable names the command
or the meaning: TOOLCALL_PARSE_FORMAT and TOOLCALL_CATALOG_FORMAT for
--format, TOOLCALL_TOOL_TIMEOUT for exec's --timeout (and run's
--tool-timeout), TOOLCALL_RUN_TIMEOUT for run's --timeout and
TOOLCALL_PROBE_TIMEOUT for probe's, and TOOLCALL_PARSE_TEMPLATE for
parse's --template. A flag given on the command line wins. TOOLCALL_TOOLS
holds a colon-separated list of tool directories, like PATH, and
TOOLCALL_FORMAT_FILES one of format files (--format-file). run and probe
also read OPENAI_BASE_URL and OPENAI_API_KEY when --base-url and
--api-key are not given. --help, --version, --list-formats, --show-format
and --check have no variable.`

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	return newRootCmdArgs(nil, stdin, stdout, stderr)
}

// newRootCmdArgs is newRootCmd for the command line args, which it reads
// to name a misspelt command before a flag it does not know, and to build
// only what they run: when they name a command, the tree holds that one
// alone, and for --version by itself none; help, completion, a bare
// toolcall and a misspelt name get the whole tree. Every command's flags
// took a tenth of start-up, which each stage of a pipeline pays.
func newRootCmdArgs(args []string, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	errs, ok := stderr.(*messageStream)
	if !ok {
		errs = &messageStream{Writer: stderr}
		stderr = errs
	}
	root := &cobra.Command{
		Use:   "toolcall",
		Short: "Tool use for text-only language models, from the shell",
		Long:  rootDescription + "\n\nExit status:\n\n" + exitStatusText + "\n\nEnvironment:\n\n" + environmentText,
		// Runnable, so that an unknown command is a usage error (exit 2)
		// rather than cobra's plain error.
		Args: rootArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A bare "toolcall" shows what there is to run, on stderr
			// since nothing ran.
			fmt.Fprint(cmd.ErrOrStderr(), cmd.UsageString())
			return &usageError{err: errors.New("missing command: name one of the commands above")}
		},
		// The environment fills in flags not given on the command line.
		// Cobra runs only the nearest PersistentPreRunE, so a subcommand
		// must not define one of its own.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			warnRetiredEnv(os.LookupEnv, warnTo(cmd.ErrOrStderr()))
			err := applyEnv(cmd.Flags(), os.LookupEnv)
			// What no message may show is known now, once for the run.
			errs.gather(cmd)
			if err != nil {
				return err
			}
			return checkVerbosity(cmd)
		},
		SuggestionsMinimumDistance: 2, // cobra's default, which SuggestionsFor does not apply
		Version:                    versionString(),
		SilenceErrors:              true, // execute prints errors
		SilenceUsage:               true, // a failure is not a reason to show usage
		DisableAutoGenTag:          true, // man pages stay the same from one run to the next
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		// "toolcall exe --tools x" fails on the flag before cobra looks at
		// the command; the misspelt command is the mistake to report.
		if cmd == root {
			if name := firstWord(args); name != "" {
				return rootArgs(root, []string{name})
			}
		}
		return flagError(cmd, err)
	})
	root.SetVersionTemplate("toolcall {{.Version}}\n")
	// Defined here rather than by cobra, to have no -v shorthand.
	root.Flags().Bool("version", false, "print the version and exit")
	addVerbosity(root)

	commands := rootCommands(stdin, stdout, stderr)
	switch name := firstWord(args); {
	case len(args) == 1 && args[0] == "--version":
	case name != "" && slices.ContainsFunc(commands, func(c rootCommand) bool { return c.name == name }):
		for _, c := range commands {
			if c.name == name {
				root.AddCommand(c.build())
			}
		}
	default:
		for _, c := range commands {
			root.AddCommand(c.build())
		}
	}
	// Cobra adds these two only when it executes; adding them now makes
	// the tree the man pages are built from the tree users run.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	checkHelpTopics(root)
	checkShells(root)
	root.SetUsageTemplate(usageTemplate)
	settlePlaceholders(root)
	return root
}

// rootCommand is a command of the root, by name, built on demand.
type rootCommand struct {
	name  string
	build func() *cobra.Command
}

// rootCommands lists the root's commands in the order of the help
// (TestRootCommandNames holds the names to the commands).
func rootCommands(stdin io.Reader, stdout, stderr io.Writer) []rootCommand {
	return []rootCommand{
		{"catalog", func() *cobra.Command { return newCatalogCmd(stdin, stdout, stderr) }},
		{"eval", func() *cobra.Command { return newEvalCmd(stdout, stderr) }},
		{"exec", func() *cobra.Command { return newExecCmd(stdin, stdout, stderr) }},
		{"new", func() *cobra.Command { return newNewCmd(stdout, stderr) }},
		{"mcp", func() *cobra.Command { return newMCPCmd(stdin, stdout, stderr) }},
		{"parse", func() *cobra.Command { return newParseCmd(stdin, stdout, stderr) }},
		{"probe", func() *cobra.Command { return newProbeCmd(stdout, stderr) }},
		{"run", func() *cobra.Command { return newRunCmd(stdin, stdout, stderr) }},
		{"show", func() *cobra.Command { return newShowCmd(stdin, stdout, stderr) }},
		{"validate", func() *cobra.Command { return newValidateCmd(stdin, stdout, stderr) }},
		{"version", func() *cobra.Command { return newVersionCmd(stdout) }},
	}
}

// rootArgs rejects an unknown command, suggesting a close name.
func rootArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		return &usageError{err: fmt.Errorf("unknown command %q, did you mean %q?", args[0], s[0])}
	}
	return usage(fmt.Errorf("unknown command %q", args[0]))
}

// checkHelpTopics makes "toolcall help TOPIC" for a topic that is no
// command a usage error (exit 2) that suggests the command meant, where
// cobra's help command shows the root's help and exits 0. Cobra's help
// command is kept, wrapped, so that its completion and man page stay.
func checkHelpTopics(root *cobra.Command) {
	help, _, err := root.Find([]string{"help"})
	if err != nil || help == root || help.Run == nil {
		return
	}
	show := help.Run
	help.Run = nil
	help.RunE = func(cmd *cobra.Command, args []string) error {
		cur := root
		for _, name := range args {
			if !cur.HasSubCommands() {
				break // a leaf: what follows is its arguments, as cobra reads them
			}
			next := subcommand(cur, name)
			if next == nil {
				if s := cur.SuggestionsFor(name); len(s) > 0 {
					return &usageError{err: fmt.Errorf("unknown help topic %q, did you mean %q?", name, s[0])}
				}
				return &usageError{err: fmt.Errorf("unknown help topic %q: run 'toolcall help' for the commands", name)}
			}
			cur = next
		}
		show(cmd, args)
		return nil
	}
}

// subcommand is cmd's subcommand called name (or by an alias), or nil.
func subcommand(cmd *cobra.Command, name string) *cobra.Command {
	for _, c := range cmd.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return c
		}
	}
	return nil
}

// firstWord is the first argument that is not a flag, or "" when there is
// none before "--".
func firstWord(args []string) string {
	for _, a := range args {
		if a == "--" {
			return ""
		}
		if a != "" && a[0] != '-' {
			return a
		}
	}
	return ""
}

// usageArgs makes the failures of check usage errors.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usage(err)
		}
		return nil
	}
}

// checkShells makes "toolcall completion SHELL" for a shell cobra writes
// no script for a usage error (exit 2) naming the shells, and a bare
// "toolcall completion" one that lists them, where cobra shows the help
// and exits 0, so that a typo in an install script does not pass.
func checkShells(root *cobra.Command) {
	comp := subcommand(root, "completion")
	if comp == nil {
		return
	}
	var shells []string
	for _, c := range comp.Commands() {
		shells = append(shells, c.Name())
	}
	list := strings.Join(shells, ", ")
	comp.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		for _, sh := range shells {
			// One letter off, or two swapped (zhs): shell names are too
			// short for a wider net.
			if editdist.Levenshtein(args[0], sh) == 1 || sortedLetters(args[0]) == sortedLetters(sh) {
				return &usageError{err: fmt.Errorf("no completion for shell %q, did you mean %q? (toolcall completes %s)", args[0], sh, list)}
			}
		}
		return usage(fmt.Errorf("no completion for shell %q: toolcall completes %s", args[0], list))
	}
	comp.RunE = func(cmd *cobra.Command, _ []string) error {
		fmt.Fprint(cmd.ErrOrStderr(), cmd.UsageString())
		return usage(fmt.Errorf("missing shell: name one of %s", list))
	}
}

// sortedLetters is s with its bytes sorted, to match an anagram.
func sortedLetters(s string) string {
	b := []byte(s)
	slices.Sort(b)
	return string(b)
}
