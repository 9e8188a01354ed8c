// Package launch starts every child process toolcall runs (a tool, the
// scorer, a model command) the same way, with the same guarantees: a
// process group of its own, SIGTERM then SIGKILL after a grace, output
// collected without any goroutine waiting on an end of file that a
// descendant could withhold, and a bounded time to return whatever the
// child does. It imports nothing of toolcall's.
package launch

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// DefaultGrace is how long a process group has between SIGTERM and
// SIGKILL when Spec.Grace is not set.
const DefaultGrace = 2 * time.Second

const (
	// pipeDrain bounds the wait for stdout and stderr to reach end of
	// file once the process group is dead (what cmd.WaitDelay does for
	// os/exec). Only a process that left the group (setsid, a daemon) can
	// hold them open longer, and its output is not the child's answer.
	pipeDrain = 500 * time.Millisecond
	// killWait bounds the wait for a SIGKILLed leader to exit. Only a
	// process stuck in the kernel (a dead network mount) outlives it; Run
	// returns rather than hang, and reaps it whenever it goes.
	killWait = 2 * time.Second
)

// Spec is one run of an executable.
type Spec struct {
	Path string // the executable; run directly, never through a shell
	// Exe, when set, is Path opened and checked by the caller: the
	// process runs that open file, whatever Path names by the time the
	// child starts (see execFile), and Path is only its argv[0]. The
	// caller keeps it open until Run returns, then closes it.
	Exe  *os.File
	Args []string // the arguments after the program name
	// LookPath resolves a Path without a separator through $PATH, as a
	// shell would. Off, such a Path names a file in the current directory.
	LookPath bool
	Dir      string // working directory; "" = current
	// Env is the whole environment, "NAME=value". nil means an empty
	// environment, never the parent's: pass os.Environ() to hand it on.
	Env []string
	// Stdin is written to the child's stdin, which is then closed. A
	// child that never reads it neither blocks nor fails the run.
	Stdin []byte
	// StdinFrom, when set instead, is copied to the child's stdin as it
	// comes, for a child that talks back and forth (an MCP server); the
	// child's stdin is closed when it ends. Run closes StdinFrom once the
	// child has ended, so that a copy waiting on it stops.
	StdinFrom io.ReadCloser
	// Stdout and Stderr receive the streams as they arrive, each from a
	// goroutine of its own; nil discards. A Write should not block for
	// long: the child waits for it. Its error is ignored.
	Stdout, Stderr io.Writer
	Timeout        time.Duration // 0: none, only ctx ends the run early
	Grace          time.Duration // SIGTERM -> SIGKILL delay for the whole group; DefaultGrace when <= 0
}

// Result says how a run ended. Exactly one of StartErr, TimedOut,
// Interrupted or a plain exit (ExitCode, Signal) describes it.
type Result struct {
	ExitCode int    // -1 when a signal ended it, or when it did not run or was not seen to end
	Signal   string // "SIGKILL", "SIGTERM", ... when a signal ended it
	// TimedOut: Timeout passed and the group was stopped. Interrupted:
	// ctx was done first (the run was stopped, or never started).
	TimedOut    bool
	Interrupted bool
	Duration    time.Duration
	// StartErr: the executable could not be started (missing, not
	// executable, bad Dir, ...); it wraps the os error.
	StartErr error
}

// Run runs spec's executable in a process group of its own, feeds it
// Stdin, and hands its output to Stdout and Stderr. When Timeout passes
// or ctx is done, the group gets SIGTERM, and SIGKILL after the grace.
// Run never returns before the leader is dead and its group killed, and
// never later than about Timeout + Grace + a few seconds, whatever the
// child does: a grandchild that ignores SIGTERM is SIGKILLed, and one that
// escaped the group with our pipes cannot keep us waiting. Processes the
// child leaves in its group when it exits are killed too; where the
// process adopts orphans (see AdoptOrphans), so are those that left it.
// No Write to Stdout or Stderr happens after Run returns.
func Run(ctx context.Context, spec Spec) Result {
	res := Result{ExitCode: -1}
	if ctx.Err() != nil {
		res.Interrupted = true
		return res
	}
	grace := spec.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	path := spec.Path
	if spec.LookPath && !strings.ContainsRune(path, filepath.Separator) && !strings.ContainsRune(path, '/') {
		found, err := exec.LookPath(path)
		if err != nil {
			res.StartErr = err
			return res
		}
		path = found
	}
	if !filepath.IsAbs(path) && spec.Dir != "" {
		// A relative path would otherwise be taken relative to Dir.
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
	}
	env := spec.Env
	if env == nil {
		env = []string{} // nil would hand the child our whole environment
	}
	stdoutTo, stderrTo := spec.Stdout, spec.Stderr
	if stdoutTo == nil {
		stdoutTo = io.Discard
	}
	if stderrTo == nil {
		stderrTo = io.Discard
	}

	start := time.Now()
	argv0 := path
	if spec.LookPath {
		argv0 = spec.Path // as a shell would pass it
	}
	p, err := startGroup(path, spec.Exe, append([]string{argv0}, spec.Args...), spec.Dir, env)
	if err != nil {
		res.StartErr = err
		res.Duration = time.Since(start)
		return res
	}

	outDone := make(chan struct{}) // stdout and stderr are at end of file (or closed)
	var readers sync.WaitGroup
	readers.Go(func() { copyStream(p.stdout, stdoutTo) })
	readers.Go(func() { copyStream(p.stderr, stderrTo) })
	go func() { readers.Wait(); close(outDone) }()

	stdinDone := make(chan struct{})
	go func() {
		defer close(stdinDone)
		// Errors are the child's business: EPIPE means it did not want
		// (all of) its input, which is its right.
		if len(spec.Stdin) > 0 {
			p.stdin.Write(spec.Stdin)
		}
		if spec.StdinFrom != nil {
			io.Copy(p.stdin, spec.StdinFrom)
		}
		p.stdin.Close()
	}()

	exited := make(chan struct{})
	reaped := false
	go func() {
		if peekExit == nil || !peekExit(p.proc.Pid) {
			p.state, _ = p.proc.Wait() // a failed wait leaves state nil: exit -1
			reaped = true
		}
		close(exited)
	}()

	var timeout <-chan time.Time
	if spec.Timeout > 0 {
		timer := time.NewTimer(spec.Timeout)
		defer timer.Stop()
		timeout = timer.C
	}
	select {
	case <-exited:
	case <-timeout:
		res.TimedOut = true
	case <-ctx.Done():
		res.Interrupted = true
	}
	if res.TimedOut || res.Interrupted {
		select {
		case <-exited:
			// It finished as time ran out: that is a finish, not a kill.
			res.TimedOut, res.Interrupted = false, false
		default:
		}
	}
	if res.TimedOut || res.Interrupted {
		p.signalGroup(false)
		graceTimer := time.NewTimer(grace)
		select {
		case <-exited:
			// The leader is gone; the rest of the group may use what is
			// left of the grace to finish, which shows as their pipes
			// closing.
			select {
			case <-outDone:
			case <-graceTimer.C:
			}
		case <-graceTimer.C:
		}
		graceTimer.Stop()
		p.signalGroup(true)
		select {
		case <-exited:
		case <-time.After(killWait):
			go func() {
				<-exited
				p.signalGroup(true)
				if !reaped {
					p.proc.Wait()
				}
				p.closePipes()
				ended()
			}()
			p.closePipes()
			closeStdinFrom(spec)
			<-outDone
			<-stdinDone
			res.Duration = time.Since(start)
			return res // ExitCode -1: it was not seen to end
		}
	}
	// Whatever the leader left in its group dies with it.
	p.signalGroup(true)
	if !reaped {
		p.state, _ = p.proc.Wait()
	}
	// And so do those that left the group, where we adopted them.
	ended()

	drain := time.NewTimer(pipeDrain)
	select {
	case <-outDone:
	case <-drain.C:
	}
	drain.Stop()
	// Closing unblocks a reader or the stdin writer stuck on a pipe that
	// a process outside the group still holds.
	p.closePipes()
	closeStdinFrom(spec)
	<-outDone
	<-stdinDone

	if p.state != nil {
		res.ExitCode = p.state.ExitCode()
		res.Signal = exitSignal(p.state)
	}
	res.Duration = time.Since(start)
	return res
}

// closeStdinFrom stops a copy from spec.StdinFrom that waits for more.
func closeStdinFrom(spec Spec) {
	if spec.StdinFrom != nil {
		spec.StdinFrom.Close()
	}
}

// peekExit, where the platform has it, blocks until process pid has
// exited without reaping it, so that its group can be killed while the
// leader's pid (the group's id) cannot yet be reused. It reports false
// when it could not wait; the leader is then reaped first.
var peekExit func(pid int) bool

// group is a started child: its leader and our ends of its three pipes.
type group struct {
	proc                  *os.Process
	stdin, stdout, stderr *os.File
	state                 *os.ProcessState
	closeOnce             sync.Once
}

// startGroup starts path (or the open file exe, see execFile) with pipes
// for its standard streams. The child's ends are passed as files, so no
// goroutine of os/exec copies anything and nothing waits for an end of
// file that a grandchild could withhold. The child is counted as live
// (see started) from before it exists.
func startGroup(path string, exe *os.File, argv []string, dir string, env []string) (*group, error) {
	var files [6]*os.File // child stdin, stdout, stderr; then our ends
	closeAll := func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}
	var err error
	if files[0], files[3], err = os.Pipe(); err != nil {
		return nil, err
	}
	if files[4], files[1], err = os.Pipe(); err != nil {
		closeAll()
		return nil, err
	}
	if files[5], files[2], err = os.Pipe(); err != nil {
		closeAll()
		return nil, err
	}
	childFiles := files[:3:3]
	if exe != nil {
		if p, ok := execFile(exe, len(childFiles)); ok {
			path = p
			childFiles = append(childFiles, exe)
		}
	}
	started()
	proc, err := os.StartProcess(path, argv, &os.ProcAttr{
		Dir:   dir,
		Env:   env,
		Files: childFiles,
		Sys:   groupAttr(),
	})
	// Our copies of the child's ends must go, or we would never see end
	// of file on stdout.
	for i := range 3 {
		files[i].Close()
	}
	if err != nil {
		ended()
		files[3].Close()
		files[4].Close()
		files[5].Close()
		return nil, err
	}
	return &group{proc: proc, stdin: files[3], stdout: files[4], stderr: files[5]}, nil
}

func (g *group) closePipes() {
	g.closeOnce.Do(func() {
		g.stdin.Close()
		g.stdout.Close()
		g.stderr.Close()
	})
}

// readBuffers are copyStream's buffers, reused: a buffer as large as a pipe
// holds (64 KiB on Linux) drains a fast writer in few reads, but would
// cost an allocation per stream per run.
var readBuffers = sync.Pool{New: func() any { return new([64 << 10]byte) }}

// copyStream reads r into w until end of file or until r is closed.
func copyStream(r *os.File, w io.Writer) {
	buf := readBuffers.Get().(*[64 << 10]byte)
	defer readBuffers.Put(buf)
	for {
		n, err := r.Read(buf[:])
		if n > 0 {
			w.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}
