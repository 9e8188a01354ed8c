package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolcall/toolcall/catalog/scaffold"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/run"
)

const newLong = `New writes a working tool into a tools directory: the program, which reads
its arguments as JSON on standard input and prints a result, and its
sidecar, whose input_schema comes from the --param flags and whose example
calls it. It then checks the tool as catalog --check would, and prints on
standard output the line that calls the example through toolcall exec.
The tool works as written, but catalog --check fails on what new leaves
for you to replace: the description, when --description was not given,
and the "example" values of the example.

Each --param is NAME:TYPE:DESCRIPTION, where TYPE is string (the default),
integer, number, boolean, array (of strings) or object, and a ? after the
type makes the parameter optional (city:string?:The city). Parameters are
required unless marked so.

--lang picks the language: sh (the default), python, node, or go. A go tool
is a main.go in src/NAME/ under the tools directory, built into NAME beside
its sidecar with the build line in its comment (go must be on PATH). python
and node tools list python3 or node under "requires", so the catalog leaves
them out where the interpreter is missing.

The tool goes into --dir, else the first directory of TOOLCALL_TOOLS, else
./tools, created if need be. No command reads ./tools unless told to (as
a shell leaves . out of PATH), so when the directory is not in
TOOLCALL_TOOLS, new prints the export line that puts it there. New overwrites nothing: when a file it would
write is there, or a file that would be taken for the tool's program, it
refuses (exit 2), as it does a name that is not a valid tool name (letters,
digits, _, . and -). It never uses the network.`

const newExample = `  # a tool in sh that takes a city, and its check
  toolcall new get_weather --param city:string:'The city, such as Paris' \
    --description 'Current weather for a city.'

  # one in python, with an optional parameter, then call it
  toolcall new get_forecast --lang python --param city:string \
    --param unit:string?:'celsius or fahrenheit' | sh

  # a tool with side effects, which runs only with --allow-unsafe
  toolcall new send_mail --lang go --unsafe --param to --param body`

type newOptions struct {
	notes       io.Writer // stderr, or io.Discard under -q
	lang        choice
	dir         string
	params      []string
	unsafe      bool
	description string
}

func newNewCmd(stdout, stderr io.Writer) *cobra.Command {
	o := newOptions{notes: stderr, lang: choice{value: scaffold.Languages[0], choices: scaffold.Languages}}
	cmd := &cobra.Command{
		Use:     "new <name>",
		Short:   "Write a new tool: its program and its sidecar",
		Long:    newLong,
		Example: newExample,
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.notes = notesTo(cmd, stderr)
			return o.run(cmd.Context(), args[0], stdout, stderr)
		},
	}
	fs := cmd.Flags()
	fs.Var(&o.lang, "lang", "write the tool in `language`: "+strings.Join(scaffold.Languages, ", "))
	fs.StringVar(&o.dir, "dir", "", "write the tool into this `dir` (default: the first of TOOLCALL_TOOLS, else ./tools)")
	fs.StringArrayVar(&o.params, "param", nil, "add the parameter `NAME:TYPE:DESCRIPTION` (repeatable); TYPE is string (default), integer, number, boolean, array or object, ? after it for optional")
	fs.BoolVar(&o.unsafe, "unsafe", false, "mark the tool as having side effects (\"safe\": false)")
	fs.StringVar(&o.description, "description", "", "what the tool does, for the model (default: a sentence asking for one)")
	must(cmd.RegisterFlagCompletionFunc("lang", o.lang.complete))
	must(cmd.MarkFlagDirname("dir"))
	must(cmd.RegisterFlagCompletionFunc("param", cobra.NoFileCompletions))
	must(cmd.RegisterFlagCompletionFunc("description", cobra.NoFileCompletions))
	cmd.ValidArgsFunction = cobra.NoFileCompletions
	return cmd
}

func (o *newOptions) run(ctx context.Context, name string, stdout, stderr io.Writer) error {
	spec := scaffold.Spec{Name: name, Lang: o.lang.value, Dir: o.dir, Description: o.description, Unsafe: o.unsafe}
	from := "--dir" // where the directory came from, for an error about it
	if spec.Dir == "" {
		var dirs dirList
		dirs.Set(os.Getenv(envName("tools")))
		spec.Dir, from = defaultToolsDir, "the default, ./"+defaultToolsDir
		if len(dirs) > 0 {
			spec.Dir, from = dirs[0], "the first of "+envName("tools")
		}
	}
	for _, s := range o.params {
		p, err := scaffold.ParseParam(s)
		if err != nil {
			return usage(fmt.Errorf("--param: %w", err))
		}
		spec.Params = append(spec.Params, p)
	}
	res, err := scaffold.Write(ctx, spec)
	var ierr *scaffold.InputError
	if errors.As(err, &ierr) {
		if strings.HasPrefix(err.Error(), "tools directory ") { // scaffold's word for the directory
			err = fmt.Errorf("%w (%s)", err, from)
		}
		return &usageError{err: err}
	}
	for _, f := range res.Files {
		fmt.Fprintf(o.notes, "wrote %s\n", f)
	}
	if err != nil {
		return err
	}
	if len(res.Problems) > 0 {
		for _, p := range res.Problems {
			fmt.Fprintln(stderr, p)
		}
		fmt.Fprintf(stderr, "toolcall: the new tool does not pass catalog --check (%d problem%s): fix them, or report it if toolcall wrote them\n", len(res.Problems), plural(len(res.Problems)))
		return errReported
	}
	if len(res.ToDo) > 0 {
		// The tool runs, but catalog --check fails until these change.
		fmt.Fprintf(stderr, "catalog --check: %s works, and passes once you replace what toolcall new left in %s:\n", name, res.Files[0])
		for _, p := range res.ToDo {
			fmt.Fprintf(stderr, "  %s\n", p.Message)
		}
		fmt.Fprintf(stderr, "its example, through exec:\n")
	} else {
		fmt.Fprintf(stderr, "catalog --check: %s is fine; its example, through exec:\n", name)
	}
	call := `{"type":"tool_call","name":` + string(jsonw.AppendString(nil, name)) + `,"arguments":` + string(res.Example) + `}`
	execArgs := []string{"toolcall", "exec", "--tools", spec.Dir}
	if o.unsafe {
		execArgs = append(execArgs, "--allow-unsafe")
	}
	if _, err = fmt.Fprintf(stdout, "%s | %s\n", run.ShellLine([]string{"echo", call}), run.ShellLine(execArgs)); err != nil {
		return err
	}
	if line := toolsLine(spec.Dir, os.Getenv(envName("tools"))); line != "" {
		fmt.Fprintf(o.notes, "other commands read %s only when told: --tools %s, or for every command:\n    %s\n", spec.Dir, run.ShellLine([]string{spec.Dir}), line)
	}
	return nil
}

// toolsLine is the shell line that adds dir to TOOLCALL_TOOLS, whose
// value is env; "" when it is there already. The directory is made
// absolute, so that the line holds from any directory.
func toolsLine(dir, env string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	var dirs dirList
	dirs.Set(env)
	for _, d := range dirs {
		if a, err := filepath.Abs(d); err == nil && a == abs {
			return ""
		}
	}
	value := abs
	if env != "" {
		value += string(os.PathListSeparator) + env
	}
	return run.ShellLine([]string{"export", "TOOLCALL_TOOLS=" + value})
}
