package catalog

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/toolcall/toolcall/internal/urlcred"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/mcpclient"
	"github.com/toolcall/toolcall/tools/schema"
)

// LoadOptions are the parts of the machine Load looks at, so tests can
// stand in for them.
type LoadOptions struct {
	// Warn receives each warning (a missing description, a dialect
	// mapping, a tool without an executable), naming its file; nil drops
	// them.
	Warn func(string)
	// LookPath finds a command a sidecar "requires"; nil: exec.LookPath.
	LookPath func(string) (string, error)
	// GOOS and GOARCH are the platform checked against "platforms"; ""
	// means this machine's.
	GOOS, GOARCH string
	// MCP are MCP servers to take tools from besides the directories'
	// (--mcp): each a command line, split at spaces, run without a shell,
	// or the http:// URL of a server running on this machine.
	MCP []string
	// MCPDialer connects to the MCP servers given by URL (mcpclient.Server
	// Dial). Catalog opens no connection itself: nil leaves such servers
	// out, with a warning that says to set it (run.DialMCP does).
	MCPDialer mcpclient.Dialer
	// SkipInvalid loads the valid tools when some sidecars are not
	// (invalid, a duplicate name, an ambiguous executable): each of those
	// is left out with a warning naming its file, instead of failing the
	// load. Fail closed stays the default: a tools directory someone
	// broke should not go unnoticed.
	SkipInvalid bool
}

// Load reads the tool directories dirs, in order, and returns the catalog
// of every tool in them. Each directory is flat: every *.json file in it is
// a sidecar, and the tool's executable sits beside it (see findExecutable).
// A tool that cannot run here (no executable, a required command missing,
// another platform) is loaded with Unavailable saying why, and a warning.
// Every input schema is compiled here, in parallel: one that does not
// compile is an invalid sidecar, as a CI job must not lose a tool without
// failing; with SkipInvalid its tool is loaded withheld (Unavailable), with
// a warning, rather than offered and then failing every call.
//
// A .json file with no key of a tool definition and no executable beside
// it (package.json) is skipped, and a directory that holds no tool is
// named in a warning. An entry of dirs that is a file is read as a list of
// tool definitions (tools.ParseToolList): its tools have no executable.
//
// Any invalid sidecar, unreadable directory, duplicate name or ambiguous
// executable makes Load fail; the error joins every problem, each naming
// its file, so all of them can be fixed in one go. With SkipInvalid, only
// an unreadable directory does: the sidecars' problems are warnings, and
// their tools are left out.
func Load(dirs []string, opts LoadOptions) (*Catalog, error) {
	s := scan(dirs, opts)
	var errs, invalid []error
	for _, d := range s.dirErrs {
		errs = append(errs, d.err)
	}
	var ts []*tools.Tool
	var servers []*mcpclient.Server
	for _, e := range s.entries {
		if e.notTool {
			continue
		}
		warn(opts, e.warns...)
		if e.err != nil {
			invalid = append(invalid, e.err)
			continue
		}
		if e.tool != nil {
			for _, msg := range e.tool.StrayKeys {
				warn(opts, e.file+": "+msg)
			}
		}
		if e.server != nil {
			servers = append(servers, e.server)
			continue
		}
		if e.exeErr != "" {
			invalid = append(invalid, &tools.SidecarError{File: e.file, Tool: e.tool.Name, Err: errors.New(e.exeErr)})
			continue
		}
		if e.dup != "" {
			invalid = append(invalid, &tools.SidecarError{File: e.file, Tool: e.tool.Name, Err: errors.New(e.dup)})
			continue
		}
		switch {
		case e.schemaErr != nil && !opts.SkipInvalid:
			// A tool lost without a word fails a CI job later and
			// elsewhere; --skip-invalid withholds it instead.
			invalid = append(invalid, &tools.SidecarError{File: e.file, Tool: e.tool.Name, Err: fmt.Errorf("the input schema of tool %q does not compile: %s; fix the schema in the sidecar (or give --skip-invalid to withhold the tool and load the others)", e.tool.Name, e.schemaErr.Reason())})
			continue
		case e.schemaErr != nil:
			warn(opts, fmt.Sprintf("%s: tool %q is withheld: its input schema does not compile: %s; fix the schema in the sidecar", e.file, e.tool.Name, e.schemaErr.Reason()))
		case e.missing != "":
			warn(opts, fmt.Sprintf("tool %q is not available: %s", e.tool.Name, e.missing))
		}
		ts = append(ts, e.tool)
	}
	if !opts.SkipInvalid {
		errs = append(errs, invalid...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for _, err := range invalid {
		for _, e := range unjoin(err) {
			warn(opts, e.Error()+"; left out (--skip-invalid)")
		}
	}
	for _, d := range s.emptyDirs() {
		warn(opts, d.err.Error())
	}
	for _, line := range opts.MCP {
		argv := strings.Fields(line)
		switch {
		case len(argv) == 1 && isURL(argv[0]):
			if err := mcpclient.CheckURL(argv[0]); err != nil {
				return nil, fmt.Errorf("--mcp %w", err)
			}
			servers = append(servers, &mcpclient.Server{Name: "--mcp " + strconv.Quote(urlcred.Strip(argv[0])), URL: argv[0]})
		case len(argv) > 0:
			// As in a sidecar, with the working directory for its
			// directory: what it runs from there is protected too.
			cmd, err := mcpclient.CheckCommand(argv, "", false)
			if err != nil {
				return nil, fmt.Errorf("--mcp %q: %w", line, err)
			}
			servers = append(servers, &mcpclient.Server{Name: "--mcp " + strconv.Quote(line), Command: cmd})
		}
	}
	changed := make(chan struct{}, 1)
	for _, s := range servers {
		s.Dial = opts.MCPDialer
		s.OnListChanged = func() {
			select {
			case changed <- struct{}{}:
			default: // a relist is due already
			}
		}
	}
	seen := changes(servers)
	ts = append(ts, serverTools(servers, ts, opts)...)
	c := New(ts)
	c.servers, c.seen, c.load = servers, seen, opts
	if len(servers) > 0 {
		c.changed = changed
	}
	return c, nil
}

// isURL reports whether an --mcp argument means a server to reach rather
// than one to run: no program is called http://...
func isURL(arg string) bool {
	lower := strings.ToLower(arg)
	return strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://")
}

func warn(opts LoadOptions, msgs ...string) {
	if opts.Warn == nil {
		return
	}
	for _, m := range msgs {
		opts.Warn(m)
	}
}

// entry is one sidecar found in a tools directory, and what loading it
// found out.
type entry struct {
	file  string   // the sidecar's path, as the directory was given
	dir   string   // the directory, as given
	cands []string // names of the files beside it that may be its executable

	tool   *tools.Tool       // nil when the sidecar is invalid or declares an MCP server
	server *mcpclient.Server // the MCP server the sidecar declares
	warns  []string
	err    error // the sidecar is invalid: joined *tools.SidecarError

	exeErr    string               // more than one executable: an error
	schemaErr *schema.CompileError // the input schema does not compile: the tool is withheld
	missing   string               // no usable executable: the tool is unavailable
	skip      string               // a required command or the platform is missing
	dup       string               // another sidecar already has the tool's name
	// definition is set for a tool read from a list of definitions (a
	// --tools FILE): it has no executable to find.
	definition bool
	// notTool is set for a .json file that is no sidecar (package.json):
	// no key of a tool definition and no executable beside it. It is
	// skipped.
	notTool bool
}

// notToolReason is what catalog --check says of a skipped .json file.
func (e *entry) notToolReason() string {
	stem := strings.TrimSuffix(filepath.Base(e.file), ".json")
	return fmt.Sprintf("not a tool: no input_schema, parameters or other key of a tool definition, and no executable named %s beside it", stem)
}

// scanned is everything scan found, in a fixed order: directories as given,
// files by name within each.
type scanned struct {
	dirErrs []dirError
	dirs    []string // the directories listed, in order
	entries []*entry
}

// emptyDirs says which of the directories listed hold no tool: a tools
// directory given by mistake should not make a run offer "No tools are
// available" without a word.
func (s *scanned) emptyDirs() []dirError {
	tools := map[string]int{}
	skipped := map[string]int{}
	for _, e := range s.entries {
		if e.notTool {
			skipped[e.dir]++
		} else {
			tools[e.dir]++
		}
	}
	var out []dirError
	for _, d := range s.dirs {
		if tools[d] > 0 {
			continue
		}
		why := "it has no NAME.json sidecar"
		switch n := skipped[d]; {
		case n == 1:
			why = "its one .json file is not a tool sidecar"
		case n > 1:
			why = fmt.Sprintf("its %d .json files are not tool sidecars", n)
		}
		out = append(out, dirError{d, fmt.Errorf("tools directory %s holds no tools: %s; a tool is a sidecar NAME.json beside its executable NAME (check --tools and TOOLCALL_TOOLS)", d, why)})
	}
	return out
}

type dirError struct {
	dir string
	err error
}

// scan lists the directories, then reads and checks every sidecar in
// parallel, keeping the results in directory order.
func scan(dirs []string, opts LoadOptions) *scanned {
	s := &scanned{}
	listed := map[string]bool{}
	for _, dir := range dirs {
		// A directory given twice (TOOLCALL_TOOLS and --tools, say) is
		// read once, as PATH would be, rather than clash with itself.
		if abs, err := filepath.Abs(dir); err == nil {
			if listed[abs] {
				continue
			}
			listed[abs] = true
		}
		if fi, err := os.Stat(dir); err == nil && fi.Mode().IsRegular() {
			s.dirs = append(s.dirs, dir)
			s.entries = append(s.entries, listFileEntries(dir)...)
			continue
		}
		es, err := listDir(dir)
		if err != nil {
			s.dirErrs = append(s.dirErrs, dirError{dir, err})
			continue
		}
		s.dirs = append(s.dirs, dir)
		s.entries = append(s.entries, es...)
	}
	parallel(len(s.entries), func(i int) { s.entries[i].load() })

	// The rest is cheap and order-dependent: it runs in one goroutine.
	goos, goarch := opts.GOOS, opts.GOARCH
	if goos == "" {
		goos = runtime.GOOS
	}
	if goarch == "" {
		goarch = runtime.GOARCH
	}
	lookPath := opts.LookPath
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	found := map[string]bool{} // each required command is looked up once
	seen := map[string]string{}
	for _, e := range s.entries {
		t := e.tool
		if t == nil {
			continue
		}
		if first, ok := seen[t.Name]; ok {
			e.dup = fmt.Sprintf("tool name %q is also defined in %s; names must be unique across all tools directories, so rename one (set \"name\" in its sidecar)", t.Name, first)
			continue
		}
		seen[t.Name] = e.file
		e.skip = platformReason(t.Platforms, goos, goarch)
		if e.skip == "" {
			for _, r := range t.Requires {
				ok, known := found[r]
				if !known {
					_, err := lookPath(r)
					ok = err == nil
					found[r] = ok
				}
				if !ok {
					e.skip = fmt.Sprintf("requires %s, not found on PATH", r)
					break
				}
			}
		}
		switch {
		case e.schemaErr != nil:
			t.Unavailable = "its input schema does not compile: " + e.schemaErr.Reason()
		case e.skip != "":
			t.Unavailable = e.skip
		case e.missing != "":
			// The warning gives the operator the file and the fix; the
			// model, which reads Unavailable, needs neither our paths nor
			// a chmod it cannot run.
			t.Unavailable = "its program is not installed on this machine"
		}
	}
	return s
}

// listDir reads one tools directory and pairs each sidecar with the files
// that could be its executable.
func listDir(dir string) ([]*entry, error) {
	des, err := readDir(dir)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == dir {
			err = pe.Err // the path is in the message already
		}
		return nil, fmt.Errorf("tools directory %s: %w (check --tools and TOOLCALL_TOOLS)", dir, err)
	}
	es := make([]*entry, 0, len(des)/2)
	byStem := make(map[string]*entry, len(des)/2)
	for _, de := range des {
		name := de.Name()
		// Hidden files are editor backups and the like, and
		// subdirectories are not searched: the folder is flat.
		if strings.HasPrefix(name, ".") || de.IsDir() || !strings.HasSuffix(name, ".json") {
			continue
		}
		e := &entry{file: filepath.Join(dir, name), dir: dir}
		es = append(es, e)
		byStem[strings.TrimSuffix(name, ".json")] = e
	}
	// A file is the executable of the sidecar whose stem is its whole
	// name (get_weather), or else its name less one extension
	// (get_weather.py). With math.json and math.factorial.json side by
	// side, the file math.factorial belongs to the second.
	for _, de := range des {
		name := de.Name()
		if strings.HasPrefix(name, ".") || de.IsDir() || strings.HasSuffix(name, ".json") {
			continue
		}
		e := byStem[name]
		if e == nil {
			if ext := filepath.Ext(name); ext != "" && ext != name {
				e = byStem[strings.TrimSuffix(name, ext)]
			}
		}
		if e != nil {
			e.cands = append(e.cands, name)
		}
	}
	slices.SortFunc(es, func(a, b *entry) int { return strings.Compare(a.file, b.file) })
	return es, nil
}

// readDir lists dir unsorted: listDir sorts only the sidecars, half the
// entries of a typical directory.
func readDir(dir string) ([]fs.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// buffers are reused between sidecars: ParseSidecar keeps nothing of the
// bytes it is given.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

// maxSidecar is the largest sidecar read: a tool's description and schema
// fit in a few KiB, and anything near this is not a sidecar.
const maxSidecar = 1 << 20

// readFile reads the sidecar path into *buf, growing it as needed. Unlike
// os.ReadFile it allocates nothing for the common small sidecar. Only a
// regular file of at most maxSidecar bytes is read: a FIFO or a device
// named *.json would hang the load or never end, so it is an error, and
// is opened without blocking to find out.
func readFile(path string, buf *[]byte) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("it is not a regular file (%s); a sidecar must be a plain JSON file", fileKind(fi.Mode()))
	case fi.Size() > maxSidecar:
		return nil, fmt.Errorf("it is %d bytes, more than the %d KiB a sidecar may have", fi.Size(), maxSidecar>>10)
	}
	b := (*buf)[:0]
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if len(b) > maxSidecar { // it grew as we read
			*buf = b[:0]
			return nil, fmt.Errorf("it is more than the %d KiB a sidecar may have", maxSidecar>>10)
		}
		if err == io.EOF {
			*buf = b
			return b, nil
		}
		if err != nil {
			*buf = b
			return nil, err
		}
	}
}

// fileKind names the type of a file that is not a regular one.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "of type " + m.Type().String()
}

// maxToolList bounds a file of tool definitions given to --tools: the
// largest published lists are a few hundred KiB.
const maxToolList = 16 << 20

// listFileEntries reads a file that holds several tool definitions (see
// tools.ParseToolList): one entry per tool, or one holding the error.
func listFileEntries(file string) []*entry {
	fail := func(err error) []*entry {
		return []*entry{{file: file, dir: file, definition: true, err: err}}
	}
	f, err := os.Open(file)
	if err != nil {
		return fail(&tools.SidecarError{File: file, Err: fmt.Errorf("cannot read the list of tools: %w", err)})
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxToolList+1))
	switch {
	case err != nil:
		return fail(&tools.SidecarError{File: file, Err: fmt.Errorf("cannot read the list of tools: %w", err)})
	case len(data) > maxToolList:
		return fail(&tools.SidecarError{File: file, Err: fmt.Errorf("the list of tools is over %d MiB", maxToolList>>20)})
	}
	ts, _, warns, err := tools.ParseToolList(file, data)
	if err != nil {
		es := fail(err)
		es[0].warns = warns
		return es
	}
	es := make([]*entry, len(ts))
	for i, t := range ts {
		es[i] = &entry{file: t.File, dir: file, tool: t, definition: true}
	}
	if len(es) > 0 {
		es[0].warns = warns
	}
	return es
}

// load reads and parses the sidecar, checks that its schema compiles and
// finds its executable.
func (e *entry) load() {
	if e.definition {
		if e.tool != nil {
			e.checkSchema()
		}
		return
	}
	buf := buffers.Get().(*[]byte)
	defer buffers.Put(buf)
	data, err := readFile(e.file, buf)
	if err != nil {
		e.err = &tools.SidecarError{File: e.file, Err: fmt.Errorf("cannot read the sidecar: %w", err)}
		return
	}
	if srv, ok, err := mcpclient.ParseSidecar(e.file, data); ok {
		e.server, e.err = srv, err
		return
	}
	if len(e.cands) == 0 && !tools.MeansATool(data) {
		e.notTool = true
		return
	}
	e.tool, e.warns, e.err = tools.ParseSidecar(e.file, data)
	if e.err != nil {
		e.tool = nil
		return
	}
	e.checkSchema()
	e.findExecutable()
	// From here on a run refuses the tool if its executable changes.
	e.tool.RecordExecutable()
}

// checkSchema records whether the tool's input schema compiles.
func (e *entry) checkSchema() {
	if err := e.tool.CheckSchema(); err != nil {
		if !errors.As(err, &e.schemaErr) {
			e.schemaErr = &schema.CompileError{File: e.file, Tool: e.tool.Name, Err: err}
		}
	}
}

// findExecutable sets the tool's Command to the path of its executable,
// under the directory as the user gave it, so that a listing is the same
// on every machine that has the project (see commandPath): the sidecar's "command" (relative to the sidecar's
// directory), else the one executable file among the candidates. It
// records why there is none, or that there are two.
func (e *entry) findExecutable() {
	t := e.tool
	noExe := func(why string) { e.missing = "no executable beside " + e.file + ": " + why }
	if t.Command != "" {
		p := t.Command
		if !filepath.IsAbs(p) {
			p = filepath.Join(e.dir, p)
		}
		if why := notExecutable(p); why != "" {
			noExe(fmt.Sprintf("\"command\" %q %s", t.Command, why))
		}
		t.Command = commandPath(p)
		return
	}
	var exes, others []string
	for _, c := range e.cands {
		if notExecutable(filepath.Join(e.dir, c)) == "" {
			exes = append(exes, c)
		} else {
			others = append(others, c)
		}
	}
	switch {
	case len(exes) == 1:
		t.Command = commandPath(filepath.Join(e.dir, exes[0]))
	case len(exes) > 1:
		e.exeErr = fmt.Sprintf("more than one executable could run tool %q: %s; keep one, or say which in the sidecar's \"command\"",
			t.Name, strings.Join(exes, " and "))
	case len(others) > 0:
		noExe(fmt.Sprintf("%s is not executable (chmod +x %s)", others[0], filepath.Join(filepath.Dir(e.file), others[0])))
	default:
		stem := strings.TrimSuffix(filepath.Base(e.file), ".json")
		noExe(fmt.Sprintf("add an executable named %s or %s.EXT (such as %s.py), or set \"command\" in the sidecar", stem, stem, stem))
	}
}

// notExecutable says why path cannot be run as a tool, or "" when it can.
func notExecutable(path string) string {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "does not exist"
	case err != nil:
		return fmt.Sprintf("cannot be read: %v", err)
	case !fi.Mode().IsRegular():
		return "is not a regular file"
	case runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
		return "is not executable (chmod +x it)"
	}
	return ""
}

// platformReason says why a tool for platforms does not run on goos/goarch,
// or "" when it does. Entries are GOOS or GOOS/GOARCH.
func platformReason(platforms []string, goos, goarch string) string {
	if len(platforms) == 0 {
		return ""
	}
	here := goos + "/" + goarch
	if slices.Contains(platforms, goos) || slices.Contains(platforms, here) {
		return ""
	}
	return fmt.Sprintf("runs on %s only, this is %s", strings.Join(platforms, ", "), here)
}

// parallel calls fn(0) ... fn(n-1) on up to GOMAXPROCS goroutines. Each
// call writes only its own slot, so results stay in order.
func parallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// commandPath cleans p and keeps a relative path relative, written with a
// directory ("./get_weather") so that running it never searches PATH.
func commandPath(p string) string {
	p = filepath.Clean(p)
	if !filepath.IsAbs(p) && !strings.ContainsRune(p, filepath.Separator) {
		p = "." + string(filepath.Separator) + p
	}
	return p
}
