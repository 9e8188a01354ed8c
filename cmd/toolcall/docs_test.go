package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/toolcall/toolcall/internal/golden"
)

// The generated directories, relative to the module root, and where the
// module root is from this package's directory.
var (
	docsDirs   = []string{"man", "completions"}
	moduleRoot = filepath.Join("..", "..")
)

// manDate is the date in the header of the man pages. It is fixed so that
// they come out the same on every run; move it on when a release changes
// them.
var manDate = time.Date(2026, time.November, 1, 0, 0, 0, 0, time.UTC)

// TestDocs checks that man/ and completions/ hold exactly what the command
// tree generates. With -update (make generate) it rewrites them instead.
func TestDocs(t *testing.T) {
	want, err := generateDocs()
	if err != nil {
		t.Fatal(err)
	}
	have, err := readDocs(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	if *golden.Update {
		if err := writeDocs(moduleRoot, have, want); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, name := range sortedKeys(want) {
		got, ok := have[name]
		switch {
		case !ok:
			t.Errorf("%s is missing; run make generate", name)
		case !bytes.Equal(got, want[name]):
			t.Errorf("%s is stale; run make generate (-committed +generated):\n%s", name, cmp.Diff(string(got), string(want[name])))
		}
	}
	for _, name := range sortedKeys(have) {
		if _, ok := want[name]; !ok {
			t.Errorf("%s is not generated (a removed command?); run make generate", name)
		}
	}
}

// generateDocs builds the man pages and the completion scripts, keyed by
// their path from the module root.
func generateDocs() (map[string][]byte, error) {
	root := newRootCmd(strings.NewReader(""), io.Discard, io.Discard)
	// In the man pages, the exit status and environment are sections of
	// their own on every page rather than part of the root's description.
	root.Long = rootDescription
	files := make(map[string][]byte)

	var walk func(*cobra.Command) error
	walk = func(cmd *cobra.Command) error {
		if !cmd.IsAvailableCommand() || cmd.IsAdditionalHelpTopicCommand() {
			return nil
		}
		cmd.DisableAutoGenTag = true
		// The man pages go through markdown, where <file> would be taken
		// for HTML and dropped.
		cmd.Use = strings.ReplaceAll(cmd.Use, "<", `\<`)
		cmd.Long = escapeProse(cmd.Long)
		cmd.InitDefaultHelpFlag() // cobra adds it when it executes
		name := strings.ReplaceAll(cmd.CommandPath(), " ", "-") + ".1"
		files["man/"+name] = md2man.Render(manPage(cmd))
		for _, c := range cmd.Commands() {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		return nil, err
	}

	completions := []struct {
		name string
		gen  func(io.Writer) error
	}{
		{"toolcall.bash", func(w io.Writer) error { return root.GenBashCompletionV2(w, true) }},
		{"_toolcall", root.GenZshCompletion},
		{"toolcall.fish", func(w io.Writer) error { return root.GenFishCompletion(w, true) }},
	}
	for _, c := range completions {
		var buf bytes.Buffer
		if err := c.gen(&buf); err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		files["completions/"+c.name] = buf.Bytes()
	}
	return files, nil
}

// manPage is the man page of cmd in md2man's markdown, with its sections
// in the order of man-pages(7): NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXIT
// STATUS, ENVIRONMENT, EXAMPLE, SEE ALSO. Options show the word that
// stands for their value, as --help does (--timeout=DURATION), never a
// default in its place.
func manPage(cmd *cobra.Command) []byte {
	var b bytes.Buffer
	dashed := strings.ReplaceAll(cmd.CommandPath(), " ", "-")
	fmt.Fprintf(&b, "%% %q \"1\" %q \"toolcall\" \"toolcall manual\"\n", strings.ToUpper(dashed), manDate.Format("Jan 2006"))
	fmt.Fprintf(&b, "# NAME\n%s \\- %s\n\n", dashed, cmd.Short)
	synopsis := cmd.UseLine()
	if !cmd.HasParent() {
		synopsis = cmd.Name() + " \\<command> [flags]"
	}
	fmt.Fprintf(&b, "# SYNOPSIS\n**%s**\n\n", synopsis)
	description := cmd.Long
	if description == "" {
		description = cmd.Short
	}
	fmt.Fprintf(&b, "# DESCRIPTION\n%s\n\n", description)
	manOptions(&b, "OPTIONS", cmd.NonInheritedFlags())
	manOptions(&b, "OPTIONS INHERITED FROM PARENT COMMANDS", cmd.InheritedFlags())

	fmt.Fprintf(&b, "# EXIT STATUS\n\n%s\n\n# ENVIRONMENT\n\n%s\n", exitStatusText, environmentText)
	var vars []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if hasEnv(f) && !f.Hidden {
			vars = append(vars, fmt.Sprintf("    %-24s --%s", flagEnv(f), f.Name))
		}
	})
	if len(vars) > 0 {
		b.WriteString("\n" + strings.Join(vars, "\n") + "\n")
	}
	b.WriteString("\n")

	if cmd.Example != "" {
		fmt.Fprintf(&b, "# EXAMPLE\n```\n%s\n```\n", cmd.Example)
	}
	var seeAlso []string
	if cmd.HasParent() {
		seeAlso = append(seeAlso, fmt.Sprintf("**%s(1)**", strings.ReplaceAll(cmd.Parent().CommandPath(), " ", "-")))
	}
	for _, c := range cmd.Commands() { // sorted by name
		if c.IsAvailableCommand() && !c.IsAdditionalHelpTopicCommand() {
			seeAlso = append(seeAlso, fmt.Sprintf("**%s-%s(1)**", dashed, c.Name()))
		}
	}
	if len(seeAlso) > 0 {
		fmt.Fprintf(&b, "# SEE ALSO\n%s\n", strings.Join(seeAlso, ", "))
	}
	return b.Bytes()
}

// manOptions writes the flags of fs under the heading title.
func manOptions(b *bytes.Buffer, title string, fs *pflag.FlagSet) {
	if !fs.HasAvailableFlags() {
		return
	}
	fmt.Fprintf(b, "# %s\n", title)
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		if f.Shorthand != "" && f.ShorthandDeprecated == "" {
			fmt.Fprintf(b, "**-%s**, ", f.Shorthand)
		}
		fmt.Fprintf(b, "**--%s**", f.Name)
		placeholder, usage := flagPlaceholder(f)
		if placeholder != "" {
			fmt.Fprintf(b, "=*%s*", placeholder)
		}
		if d := flagDefault(f); d != "" {
			usage += " (default " + d + ")"
		}
		fmt.Fprintf(b, "\n\t%s\n\n", usage)
	})
	b.WriteString("\n")
}

// escapeProse escapes < in the markdown paragraphs of s, leaving alone the
// indented blocks, which are shown as they are.
func escapeProse(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "    ") && !strings.HasPrefix(l, "\t") {
			lines[i] = strings.ReplaceAll(l, "<", `\<`)
		}
	}
	return strings.Join(lines, "\n")
}

// readDocs reads every file in the generated directories under dir.
func readDocs(dir string) (map[string][]byte, error) {
	files := make(map[string][]byte)
	for _, d := range docsDirs {
		err := filepath.WalkDir(filepath.Join(dir, d), func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) && path == filepath.Join(dir, d) {
					return filepath.SkipDir
				}
				return err
			}
			if e.IsDir() {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			files[filepath.ToSlash(rel)] = b
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// writeDocs makes the generated directories under dir hold want: it writes
// what changed and removes what is no longer generated.
func writeDocs(dir string, have, want map[string][]byte) error {
	for name := range have {
		if _, ok := want[name]; !ok {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return err
			}
		}
	}
	for name, b := range want {
		if bytes.Equal(have[name], b) {
			continue
		}
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
