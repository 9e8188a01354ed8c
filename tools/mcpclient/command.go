package mcpclient

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// An MCP server's command is code toolcall runs at every load, so every
// file it runs must be one a tool cannot change: taken from beside the
// sidecar (a protected tools directory), never from the working directory,
// where a model's write_file call may have put it. The command is read as
// its programs read their arguments: the program, a wrapper's program
// (env, timeout), an interpreter's script (python3 srv.py, sh srv), a
// runner's (deno run, bun run, uv run) and a package runner's local
// package (npx ./pkg); then any argument that names a script by its
// extension or an executable by a path. Forms whose code toolcall cannot
// find (sh -c, python3 -m, node -r, a package.json script) are refused
// unless the sidecar says "unchecked_command": true.

// commandShape is how a program reads its arguments.
type commandShape int

const (
	plainProgram  commandShape = iota
	wrapper                    // runs the program its arguments name: env, timeout
	interpreter                // runs the script its first positional argument names
	runner                     // deno, bun, uv: a subcommand, then a script
	packageRunner              // npx, uvx: runs a package, fetched or local
)

// commandKind is what toolcall knows of one program's options.
type commandKind struct {
	shape commandShape
	// valued options take a value (the rest of a short cluster, after
	// "=", or the next argument); script options take a file of code as
	// their value (bash --rcfile, php -f, deno --config).
	valued, script map[string]bool
	// opaque options make code run that toolcall cannot find: given on
	// the command line (-c, -e) or looked up by name (-m, -r), or a change
	// of directory that moves where names are looked up. The value says
	// which.
	opaque map[string]string
	// plus: options may start with "+" too (a shell's +o).
	plus bool
	// positional is the number of positional arguments a wrapper takes
	// before its program (timeout's duration).
	positional int
}

func optionSet(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

const (
	inlineCode = "runs code given on the command line: toolcall cannot tell which files that code runs"
	lookedUp   = "runs code it looks up by name, in the working directory among other places: toolcall cannot tell which file"
	movesDir   = "changes the directory names are looked up in: toolcall cannot tell which files run"
	fromStdin  = "reads its program from standard input, which carries the MCP messages"
)

// The kinds are set on first use, by kindOf: only the command line of an
// MCP server needs them, not every toolcall process at its start.
var (
	shellKind, pythonKind, nodeKind commandKind
	commandKinds                    map[string]commandKind
	versioned                       *regexp.Regexp
	kindsOnce                       sync.Once
)

func loadCommandKinds() {
	shellKind = commandKind{shape: interpreter, plus: true,
		valued: optionSet("-o", "-O", "+o", "+O"), script: optionSet("--rcfile", "--init-file"),
		opaque: map[string]string{"-c": inlineCode, "-s": fromStdin}}
	pythonKind = commandKind{shape: interpreter,
		valued: optionSet("-W", "-X", "--check-hash-based-pycs"),
		opaque: map[string]string{"-c": inlineCode, "-m": lookedUp}}
	nodeKind = commandKind{shape: interpreter,
		valued: optionSet("--title", "--input-type", "-C", "--conditions", "--env-file", "--inspect-port", "--stack-size"),
		opaque: map[string]string{"-e": inlineCode, "--eval": inlineCode, "-p": inlineCode, "--print": inlineCode,
			"-r": lookedUp, "--require": lookedUp, "--import": lookedUp, "--loader": lookedUp,
			"--experimental-loader": lookedUp, "--run": lookedUp}}
	commandKinds = map[string]commandKind{
		"sh": shellKind, "bash": shellKind, "dash": shellKind, "zsh": shellKind, "ksh": shellKind, "mksh": shellKind, "ash": shellKind,
		"node": nodeKind, "nodejs": nodeKind, "tsx": nodeKind, "ts-node": nodeKind,
		"ruby": {shape: interpreter, valued: optionSet("-I", "-E", "--encoding", "-F"),
			opaque: map[string]string{"-e": inlineCode, "-r": lookedUp, "-S": lookedUp, "-C": movesDir}},
		"perl": {shape: interpreter, valued: optionSet("-I"),
			opaque: map[string]string{"-e": inlineCode, "-E": inlineCode, "-M": lookedUp, "-m": lookedUp, "-S": lookedUp}},
		"php": {shape: interpreter, valued: optionSet("-d", "-z"), script: optionSet("-f", "-F", "-c"),
			opaque: map[string]string{"-r": inlineCode, "-B": inlineCode, "-R": inlineCode, "-E": inlineCode, "-S": lookedUp}},
		"lua":     {shape: interpreter, opaque: map[string]string{"-e": inlineCode, "-l": lookedUp}},
		"luajit":  {shape: interpreter, opaque: map[string]string{"-e": inlineCode, "-l": lookedUp}},
		"Rscript": {shape: interpreter, opaque: map[string]string{"-e": inlineCode}},
		"julia": {shape: interpreter, valued: optionSet("-t", "--threads", "-p", "--procs", "-O", "--project"), script: optionSet("-L", "--load", "-J", "--sysimage"),
			opaque: map[string]string{"-e": inlineCode, "--eval": inlineCode, "-E": inlineCode, "--print": inlineCode}},
		"deno": {shape: runner,
			valued: optionSet("--lock", "--cert", "--location", "--seed", "--ext", "--env-file", "--inspect", "--inspect-brk"),
			script: optionSet("-c", "--config", "--import-map", "--preload"),
			opaque: map[string]string{"--cwd": movesDir}},
		"bun": {shape: runner, valued: optionSet("--env-file", "--port", "--tsconfig-override"), script: optionSet("--config", "-c"),
			opaque: map[string]string{"-e": inlineCode, "--eval": inlineCode, "-p": inlineCode, "--print": inlineCode,
				"-r": lookedUp, "--preload": lookedUp, "--require": lookedUp, "--cwd": movesDir}},
		"uv": {shape: runner,
			valued: optionSet("--with", "--with-editable", "--with-requirements", "--python", "-p", "--env-file", "--index", "--default-index",
				"--index-url", "-i", "--extra-index-url", "--find-links", "-f", "--extra", "--group", "--only-group", "--no-group",
				"--package", "--cache-dir", "--config-file", "--color", "--prerelease", "--resolution", "--exclude-newer",
				"--index-strategy", "--keyring-provider", "--link-mode", "--refresh-package", "--reinstall-package",
				"--upgrade-package", "-P", "--config-setting", "-C", "--python-preference", "--allow-insecure-host"),
			opaque: map[string]string{"-m": lookedUp, "--module": lookedUp, "--directory": movesDir, "--project": movesDir}},
		"npx":  {shape: packageRunner, valued: optionSet("-p", "--package"), opaque: map[string]string{"-c": inlineCode, "--call": inlineCode, "--prefix": movesDir}},
		"pnpx": {shape: packageRunner, valued: optionSet("-p", "--package"), opaque: map[string]string{"-c": inlineCode}},
		"bunx": {shape: packageRunner, valued: optionSet("-p", "--package")},
		"uvx": {shape: packageRunner, valued: optionSet("--from", "--with", "--with-editable", "--with-requirements", "--python", "-p",
			"--index", "--default-index", "--index-url", "-i", "--extra-index-url", "--find-links", "-f", "--cache-dir", "--config-file")},
		"env":    {shape: wrapper, valued: optionSet("-u", "--unset"), opaque: map[string]string{"-S": inlineCode, "--split-string": inlineCode, "-C": movesDir, "--chdir": movesDir}},
		"nice":   {shape: wrapper, valued: optionSet("-n", "--adjustment")},
		"nohup":  {shape: wrapper},
		"setsid": {shape: wrapper},
		"stdbuf": {shape: wrapper, valued: optionSet("-i", "-o", "-e", "--input", "--output", "--error")},
		"timeout": {shape: wrapper, positional: 1,
			valued: optionSet("-s", "--signal", "-k", "--kill-after")},
	}
	versioned = regexp.MustCompile(`^(python|pypy|ruby|perl|php|lua|node)([0-9][0-9.]*)?$`)
}

// kindOf is what toolcall knows of the program named (a path or a bare
// name): python3.12 is python.
func kindOf(program string) commandKind {
	kindsOnce.Do(loadCommandKinds)
	base := filepath.Base(program)
	if k, ok := commandKinds[base]; ok {
		return k
	}
	switch m := versioned.FindStringSubmatch(base); {
	case m == nil:
		return commandKind{}
	case m[1] == "python" || m[1] == "pypy":
		return pythonKind
	default:
		return commandKinds[m[1]]
	}
}

// commandWalk reads one command. It rewrites argv in place: a relative
// name of a file it runs becomes that file beside base.
type commandWalk struct {
	argv   []string
	base   string // "" for the working directory
	strict bool   // refuse what is not beside base, and opaque forms
	files  []string
	opaque string // the first form whose code cannot be found: "argument N, -c, ..."
	err    error
}

// CheckCommand reads argv, the command of an MCP server, as its
// programs will (see above), and returns it with the name of every file it
// runs taken from base, the sidecar's directory ("" for the working
// directory: --mcp), or an error that says which argument names a file
// that is not there, or runs code toolcall cannot find while unchecked is
// false. The error names no file: the caller says whose command it is.
func CheckCommand(argv []string, base string, unchecked bool) ([]string, error) {
	w := &commandWalk{argv: append([]string(nil), argv...), base: base, strict: true}
	w.program(0)
	if w.err != nil {
		return nil, w.err
	}
	if w.opaque != "" && !unchecked {
		instead := `(such as ["python3", "server.py"], server.py beside the sidecar)`
		optIn := `set "unchecked_command": true in the mcp_server to run it as it is`
		if base == "" {
			instead = `(such as python3 server.py)`
			optIn = `declare the server in a sidecar with "unchecked_command": true to run it as it is`
		}
		return nil, fmt.Errorf("%s, so a file a tool planted in the working directory could run; run a script of yours instead %s, or %s", w.opaque, instead, optIn)
	}
	return w.argv, nil
}

// commandFiles lists the files an MCP server's command runs, as
// CheckCommand reads it: the program (looked up on PATH as the launcher
// will), the scripts its interpreters are handed, and every argument that
// names a script or an executable. A data file (a database, a config) is
// not taken for code, so that its directory, often the project's, stays
// writable.
func commandFiles(command []string) []string {
	if len(command) == 0 {
		return nil
	}
	w := &commandWalk{argv: append([]string(nil), command...)}
	w.program(0)
	return w.files
}

// besideWhat is where base is, for messages.
func (w *commandWalk) besideWhat() string {
	if w.base == "" {
		return "in the working directory"
	}
	return "beside the sidecar"
}

// path is the file argument i names: as it is when absolute, else under
// base.
func (w *commandWalk) path(i int) string {
	name := w.argv[i]
	if filepath.IsAbs(name) || w.base == "" {
		return name
	}
	return filepath.Join(w.base, name)
}

// file takes argument i for a file of code (what says what it is): it
// becomes the path under base, and must be there. An absolute path that
// does not exist (a server not installed yet) is left to fail as the
// server starts, as before; its directory is protected all the same, so
// that no tool can put it there.
func (w *commandWalk) file(i int, what string) {
	if w.err != nil || i >= len(w.argv) {
		return
	}
	p := w.path(i)
	fi, err := os.Stat(p)
	missing := errors.Is(err, os.ErrNotExist)
	bad := err != nil && !missing || err == nil && !fi.Mode().IsRegular() && !fi.IsDir()
	switch {
	case w.strict && bad:
		why := "it is not a regular file"
		if err != nil {
			why = err.Error()
		}
		w.err = fmt.Errorf("argument %d, %q, %s: %s", i, w.argv[i], what, why)
		return
	case w.strict && missing && !filepath.IsAbs(w.argv[i]):
		w.err = fmt.Errorf("argument %d, %q, %s, is not %s (%s: there is no such file): put it there, or give its absolute path; a relative name is never taken from the working directory, where a tool may write", i, w.argv[i], what, w.besideWhat(), p)
		return
	}
	w.argv[i] = p
	w.files = append(w.files, p)
}

// markOpaque notes that argument i, the option opt of program, runs code
// toolcall cannot find.
func (w *commandWalk) markOpaque(i int, program, opt, why string) {
	if w.opaque == "" {
		w.opaque = fmt.Sprintf("argument %d, %s %s: it %s", i, filepath.Base(program), opt, why)
		if i > 0 && i < len(w.argv) && !strings.HasPrefix(w.argv[i], "-") && !strings.HasPrefix(w.argv[i], "+") {
			w.opaque = fmt.Sprintf("argument %d, %q: %s %s", i, w.argv[i], opt, why)
		}
	}
}

// program reads argument i as a program and what follows as its
// arguments.
func (w *commandWalk) program(i int) {
	if i >= len(w.argv) || w.err != nil {
		return
	}
	name := w.argv[i]
	if strings.ContainsRune(name, '/') || strings.ContainsRune(name, filepath.Separator) {
		w.file(i, "the program")
		if w.err == nil && !filepath.IsAbs(w.argv[i]) && !strings.ContainsRune(w.argv[i], filepath.Separator) {
			w.argv[i] = "." + string(filepath.Separator) + w.argv[i] // not looked up on PATH
		}
	} else if p, err := exec.LookPath(name); err == nil {
		w.files = append(w.files, p)
	}
	k := kindOf(name)
	switch k.shape {
	case wrapper:
		j := w.options(k, i+1, name)
		for n := 0; n < k.positional && j < len(w.argv); n++ {
			j++
		}
		if filepath.Base(name) == "env" {
			for j < len(w.argv) && strings.Contains(w.argv[j], "=") { // NAME=VALUE
				j++
			}
		}
		w.program(j)
	case interpreter:
		j := w.options(k, i+1, name)
		if j < len(w.argv) && w.opaque == "" {
			if w.argv[j] == "-" {
				w.markOpaque(j, name, "-", fromStdin)
			} else {
				w.file(j, "the script "+filepath.Base(name)+" runs")
			}
		}
		w.rest(j + 1)
	case runner:
		w.runner(k, i, name)
	case packageRunner:
		w.packageRunner(k, i+1, name)
	default:
		w.rest(i + 1)
	}
}

// options reads the options of program from argument j on, and returns
// the index of the first argument that is not one ("--" is passed over).
func (w *commandWalk) options(k commandKind, j int, program string) int {
	for j < len(w.argv) && w.err == nil {
		a := w.argv[j]
		if a == "--" {
			return j + 1
		}
		if len(a) < 2 || a[0] != '-' && !(k.plus && a[0] == '+') {
			return j
		}
		if strings.HasPrefix(a, "--") {
			name, _, hasValue := strings.Cut(a, "=")
			switch {
			case k.opaque[name] != "":
				w.markOpaque(j, program, name, k.opaque[name])
				return len(w.argv)
			case k.script[name]:
				if hasValue {
					w.opaque = cmp.Or(w.opaque, fmt.Sprintf("argument %d, %s: write its file as a separate argument, so that toolcall can check it", j, a))
				} else {
					j++
					w.file(j, "the file of code "+name+" takes")
				}
			case k.valued[name] && !hasValue:
				j++
			}
			j++
			continue
		}
		// A cluster of short options: -uB, -Wignore, -ec.
		for c := 1; c < len(a); c++ {
			opt := a[:1] + a[c:c+1]
			attached := c+1 < len(a)
			if why := k.opaque[opt]; why != "" {
				w.markOpaque(j, program, opt, why)
				return len(w.argv)
			}
			if k.script[opt] {
				if attached {
					w.opaque = cmp.Or(w.opaque, fmt.Sprintf("argument %d, %s: write its file as a separate argument, so that toolcall can check it", j, a))
				} else {
					j++
					w.file(j, "the file of code "+opt+" takes")
				}
				break
			}
			if k.valued[opt] {
				if !attached {
					j++
				}
				break
			}
		}
		j++
	}
	return j
}

// runner reads the arguments of deno, bun or uv (argument i): options, a
// subcommand, options, and the script or command it runs.
func (w *commandWalk) runner(k commandKind, i int, program string) {
	base := filepath.Base(program)
	j := w.options(k, i+1, program)
	if j >= len(w.argv) || w.opaque != "" {
		return
	}
	sub := w.argv[j]
	switch {
	case base == "uv" && sub == "tool" && j+1 < len(w.argv) && w.argv[j+1] == "run",
		base == "bun" && sub == "x":
		if sub == "tool" {
			j++
		}
		w.packageRunner(kindOf(map[string]string{"uv": "uvx", "bun": "bunx"}[base]), j+1, program)
		return
	case sub == "eval" || sub == "-e":
		w.markOpaque(j, program, sub, inlineCode)
		return
	case sub == "run" || base == "deno" && sub == "serve":
		j = w.options(k, j+1, program)
	case base == "uv":
		w.markOpaque(j, program, sub, "is a uv subcommand whose files toolcall does not know")
		return
	case !looksLikeFile(sub):
		// deno task NAME, bun NAME: a task of the project's configuration.
		w.markOpaque(j, program, sub, lookedUp)
		return
	}
	if j >= len(w.argv) || w.opaque != "" {
		return
	}
	target := w.argv[j]
	switch {
	case remote(target):
		w.rest(j + 1) // fetched, not a file here
	case looksLikeFile(target):
		w.file(j, "the script "+base+" runs")
		w.rest(j + 1)
	case kindOf(target).shape != plainProgram:
		w.program(j) // uv run python srv.py
	default:
		// bun run start, uv run my-server: a package.json script, a
		// command of the project's environment.
		w.markOpaque(j, program, target, lookedUp)
	}
}

// packageRunner reads the arguments of npx, uvx and their like from
// argument j: options, then the package to run, which is fetched (a
// name) or a directory or file here (a path), then the package's
// arguments.
func (w *commandWalk) packageRunner(k commandKind, j int, program string) {
	for j < len(w.argv) && w.err == nil && w.opaque == "" {
		a := w.argv[j]
		if a == "--" {
			j++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		name, value, hasValue := strings.Cut(a, "=")
		if why := k.opaque[name]; why != "" {
			w.markOpaque(j, program, name, why)
			return
		}
		if k.valued[name] {
			if !hasValue {
				j++
				if j < len(w.argv) && localPackage(w.argv[j]) {
					w.file(j, "the package "+name+" names")
				}
			} else if localPackage(value) {
				w.opaque = fmt.Sprintf("argument %d, %s: write the local package as a separate argument, so that toolcall can check it", j, a)
			}
		}
		j++
	}
	if j >= len(w.argv) || w.err != nil || w.opaque != "" {
		return
	}
	pkg := w.argv[j]
	if strings.HasPrefix(pkg, "file:") {
		w.markOpaque(j, program, pkg, "names a package by a path the package manager takes from the working directory")
		return
	}
	if localPackage(pkg) {
		w.file(j, "the package "+filepath.Base(program)+" runs")
		w.rest(j + 1)
		return
	}
	name := pkg
	if at := strings.LastIndexByte(name, '@'); at > 0 {
		name = name[:at] // tsx@4
	}
	if k := kindOf(name); k.shape == interpreter {
		j = w.options(k, j+1, name)
		if j < len(w.argv) && w.opaque == "" {
			w.file(j, "the script "+name+" runs")
		}
	}
	w.rest(j + 1)
}

// rest reads the arguments from j on that no program's rules took: one
// that names a script by its extension is a file of code, beside base; one
// that names an executable file by a path, there, is too. Any other (a
// data file, a word, an option) is left as it is.
func (w *commandWalk) rest(j int) {
	for ; j < len(w.argv) && w.err == nil; j++ {
		a := w.argv[j]
		if a == "" || a[0] == '-' {
			continue
		}
		if scriptExt[filepath.Ext(a)] {
			w.file(j, "a script")
			continue
		}
		if !strings.ContainsRune(a, '/') && !strings.ContainsRune(a, filepath.Separator) {
			continue
		}
		if fi, err := os.Stat(w.path(j)); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			w.file(j, "a program")
		}
	}
}

// looksLikeFile reports whether a runner's argument names a file rather
// than a task or a command: a path, or a name with an extension.
func looksLikeFile(a string) bool {
	return strings.ContainsAny(a, "/"+string(filepath.Separator)) || filepath.Ext(a) != ""
}

// remote reports whether a runner's script is fetched rather than read
// here: a URL, or a registry's specifier.
func remote(a string) bool {
	return strings.Contains(a, "://") || strings.HasPrefix(a, "jsr:") || strings.HasPrefix(a, "npm:")
}

// localPackage reports whether a package runner's package is a path here
// rather than a name to fetch (a scoped name, @scope/pkg, has a slash too).
func localPackage(a string) bool {
	return strings.HasPrefix(a, ".") || strings.HasPrefix(a, "/")
}

// scriptExt lists the extensions of the programs interpreters are handed.
var scriptExt = map[string]bool{
	".py": true, ".pyw": true, ".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".mts": true, ".cts": true,
	".tsx": true, ".jsx": true, ".rb": true, ".pl": true, ".pm": true, ".php": true, ".lua": true,
	".sh": true, ".bash": true, ".zsh": true, ".jar": true, ".R": true, ".jl": true, ".go": true,
}
