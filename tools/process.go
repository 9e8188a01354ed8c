package tools

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// DefaultGrace is how long a tool's process group has between SIGTERM and
// SIGKILL when ProcessSpec.Grace is not set.
const DefaultGrace = 2 * time.Second

const (
	// pipeDrain bounds the wait for a tool's stdout and stderr to reach
	// end of file once its process group is dead. Only a process that left
	// the group (setsid, a daemon) can hold them open longer, and its
	// output is not the tool's answer.
	pipeDrain = 500 * time.Millisecond
	// killWait bounds the wait for a SIGKILLed leader to exit. Only a
	// process stuck in the kernel (a dead network mount) outlives it; we
	// return rather than hang, and reap it whenever it goes.
	killWait = 2 * time.Second
)

// ProcessSpec is one run of a tool's executable.
type ProcessSpec struct {
	Path string // the executable (Tool.Command); run directly, never through a shell
	Dir  string // working directory; "" = current
	// Env is the whole environment, "NAME=value" (see Environ). nil means
	// an empty environment, never the parent's.
	Env []string
	// Stdin is written to the tool's stdin, which is then closed. A tool
	// that never reads it neither blocks nor fails the run.
	Stdin   []byte
	Timeout time.Duration // DefaultTimeout when <= 0
	Grace   time.Duration // SIGTERM -> SIGKILL delay for the whole group; DefaultGrace when <= 0
	// MaxOutput is how much of stdout is kept in memory: the first half
	// and the last half (DefaultMaxOutput when <= 0).
	MaxOutput int
	// SaveTo, when not nil, receives the whole stdout as it arrives (the
	// scratch file). A write error stops the copy, not the tool.
	SaveTo io.Writer
	// StderrTo, when not nil, receives stderr as it arrives (--stderr).
	StderrTo io.Writer
}

// ProcessResult is what a run produced. Exactly one of StartErr,
// TimedOut, Interrupted or a plain exit (ExitCode, Signal) describes how it
// ended.
type ProcessResult struct {
	// Stdout is the whole stdout when not Truncated; else Head, a line
	// saying how much was cut, and Tail.
	Stdout     []byte
	Truncated  bool
	TotalBytes int64  // how much stdout the tool wrote
	Head, Tail []byte // when Truncated: the kept head and tail, cut at character boundaries
	StderrTail []byte // the last 4 KiB of stderr
	ExitCode   int    // -1 when a signal ended it, or when it did not run or was not seen to end
	Signal     string // "SIGKILL", "SIGTERM", ... when a signal ended it
	// TimedOut: Timeout passed and the group was killed. Interrupted: ctx
	// was done first (the run was killed, or never started).
	TimedOut    bool
	Interrupted bool
	Duration    time.Duration
	// StartErr: the executable could not be started (missing, not
	// executable, bad Dir, ...); it wraps the os error.
	StartErr error
	// SaveErr is the error that stopped the copy to SaveTo, if one did;
	// the saved output is then incomplete.
	SaveErr error
}

// peekExit, where the platform has it, blocks until process pid has
// exited without reaping it, so that its group can be killed while the
// leader's pid (the group's id) cannot yet be reused. It reports false
// when it could not wait; the leader is then reaped first.
var peekExit func(pid int) bool

// RunProcess runs spec's executable in a process group of its own, feeds it
// Stdin, and collects its output within fixed memory. It never returns
// before the whole group is dead, and never later than about Timeout +
// Grace + a few seconds, whatever the tool does: a grandchild that ignores
// SIGTERM is SIGKILLed, and one that escaped the group with our pipes
// cannot keep us waiting. Processes the tool leaves behind when it exits
// are killed too.
func RunProcess(ctx context.Context, spec ProcessSpec) ProcessResult {
	res := ProcessResult{ExitCode: -1}
	if ctx.Err() != nil {
		res.Interrupted = true
		return res
	}
	timeout, grace := spec.Timeout, spec.Grace
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if grace <= 0 {
		grace = DefaultGrace
	}
	path := spec.Path
	if !filepath.IsAbs(path) && spec.Dir != "" {
		// A relative path would otherwise be taken relative to Dir.
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
	}
	env := spec.Env
	if env == nil {
		env = []string{} // nil would hand the tool our whole environment
	}

	start := time.Now()
	p, err := startGroup(path, spec.Dir, env)
	if err != nil {
		res.StartErr = err
		res.Duration = time.Since(start)
		return res
	}

	stdout := newOutputCapture(spec.MaxOutput, spec.SaveTo)
	stderr := newStderrCapture(spec.StderrTo)
	outDone := make(chan struct{}) // stdout and stderr are at end of file (or closed)
	var readers sync.WaitGroup
	readers.Go(func() { copyStream(p.stdout, stdout) })
	readers.Go(func() { copyStream(p.stderr, stderr) })
	go func() { readers.Wait(); close(outDone) }()

	stdinDone := make(chan struct{})
	go func() {
		defer close(stdinDone)
		// Errors are the tool's business: EPIPE means it did not want
		// (all of) its input, which is its right.
		if len(spec.Stdin) > 0 {
			p.stdin.Write(spec.Stdin)
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

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-exited:
	case <-timer.C:
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
			}()
			p.closePipes()
			<-outDone
			<-stdinDone
			stdout.result(&res)
			res.StderrTail = stderr.bytes()
			res.Duration = time.Since(start)
			return res // ExitCode -1: it was not seen to end
		}
	}
	// Whatever the leader left in its group dies with it.
	p.signalGroup(true)
	if !reaped {
		p.state, _ = p.proc.Wait()
	}

	drain := time.NewTimer(pipeDrain)
	select {
	case <-outDone:
	case <-drain.C:
	}
	drain.Stop()
	// Closing unblocks a reader or the stdin writer stuck on a pipe that
	// a process outside the group still holds.
	p.closePipes()
	<-outDone
	<-stdinDone

	stdout.result(&res)
	res.StderrTail = stderr.bytes()
	if p.state != nil {
		res.ExitCode = p.state.ExitCode()
		res.Signal = exitSignal(p.state)
	}
	res.Duration = time.Since(start)
	return res
}

// group is a started tool: its leader and our ends of its three pipes.
type group struct {
	proc                  *os.Process
	stdin, stdout, stderr *os.File
	state                 *os.ProcessState
	closeOnce             sync.Once
}

// startGroup starts path with pipes for its standard streams. The child's
// ends are passed as files, so no goroutine of os/exec copies anything and
// nothing waits for an end of file that a grandchild could withhold.
func startGroup(path, dir string, env []string) (*group, error) {
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
	proc, err := os.StartProcess(path, []string{path}, &os.ProcAttr{
		Dir:   dir,
		Env:   env,
		Files: files[:3],
		Sys:   groupAttr(),
	})
	// Our copies of the child's ends must go, or we would never see end
	// of file on stdout.
	for i := range 3 {
		files[i].Close()
	}
	if err != nil {
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
// cost an allocation per stream per call.
var readBuffers = sync.Pool{New: func() any { return new([64 << 10]byte) }}

// copyStream reads r into w until end of file or until r is closed. w's
// Write never fails and never blocks for long, so the tool is never held
// up by us.
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
