package parse

import (
	"context"
	"io"

	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// Options tune a Parser. The zero value detects every format and repairs
// lenient JSON.
type Options struct {
	// Format forces one syntax (an ID from Formats); empty detects all.
	Format string
	// NoRepair rejects JSON that is not strictly valid instead of
	// repairing it.
	NoRepair bool
	// FirstID numbers calls the model gave no id from call_<FirstID+1>, so
	// several inputs can share one sequence.
	FirstID int
	// ParamType, when set, returns the JSON Schema type ("string",
	// "integer", ...) of a tool's parameter, or "" when unknown. Formats
	// that write argument values as bare text (Qwen3-Coder, GLM, MiniMax)
	// use it to keep "007" a string where the schema asks for one.
	ParamType func(tool, param string) string
	// KnownTool, when set, reports whether a name is one of the caller's
	// tools. A bare call (Llama 3 JSON, a pythonic list) to a known tool is
	// then a call wherever it starts, even inside a line of prose; without
	// it, bare calls count only where docs/parse-rules.md says.
	//
	// Stream may call ParamType and KnownTool from several goroutines at
	// once (see spread.go): they must be safe for that, as lookups in maps
	// that no longer change are.
	KnownTool func(name string) bool
	// File, when set, names the input on each parse_error Stream writes,
	// for a caller that parses several inputs into one stream.
	File string
	// Syntax adds what a model's chat template says about its output
	// (see parse/chattemplate). With Syntax.Call set, Format must be
	// FormatTemplate: only the template's own call syntax is read.
	Syntax *Syntax
	// Formats are families read besides the built-in ones (format files,
	// LoadFormatFile), their markers looked at first. Format may name one.
	Formats []*Spec
}

// Stats counts what a Stream wrote.
type Stats struct {
	Events int
	Calls  int // tool_call events
	Errors int // parse_error events
}

// flushAt is how much output is gathered before it is written even in the
// middle of a piece of input.
const flushAt = 256 << 10

// Stream reads model output from r — raw text, an OpenAI or Ollama response
// JSON, or a server-sent-events stream as curl -N prints it — and writes one
// JSON event per line to w. Events are written as soon as the piece of input
// that completes them has been parsed, each line whole in one write. On
// dense input Stream reads r from worker goroutines, one Read at a time
// (see ahead.go), and returns only when they are done.
func Stream(ctx context.Context, r io.Reader, w io.Writer, opts Options) (Stats, error) {
	s := &streamWriter{ctx: ctx, w: w, eventBuffer: eventBuffer{file: opts.File}}
	p, err := NewParser(opts, s.add)
	if err != nil {
		return Stats{}, err
	}
	s.p = p
	err = unpack(r, s)
	s.stopAhead()
	// Whatever went wrong with the input, what arrived before it is
	// parsed and written. s.p may be another Parser than p by now: see
	// spread.
	if cerr := s.p.Close(); err == nil {
		err = cerr
	}
	if ferr := s.flush(); err == nil {
		err = ferr
	}
	return s.stats, err
}

// streamWriter feeds a Parser and writes its events as JSONL, one write per
// piece of input.
type streamWriter struct {
	eventBuffer
	ctx    context.Context
	w      io.Writer
	p      *Parser
	guess  guess      // see spread
	forks  []*forkOut // see spread
	piece  []byte     // what readRaw read, when spread
	pieces int        // how many readRaw read
	kept   bool       // spread kept the forks of its last piece
	ahead  *readAhead // see ahead.go
}

func (s *streamWriter) add(e *Event) error {
	s.eventBuffer.add(e)
	if len(s.out) >= flushAt {
		return s.flush()
	}
	return nil
}

// eventBuffer holds events encoded as JSONL, and counts them.
type eventBuffer struct {
	out   []byte
	file  string // set on each parse_error: Options.File
	calls tools.CallEncoder
	stats Stats
}

func (b *eventBuffer) add(e *Event) {
	b.stats.Events++
	switch e.Type {
	case tools.TypeToolCall:
		b.stats.Calls++
		b.out = b.calls.AppendJSON(b.out, &e.Call)
	case event.TypeParseError:
		b.stats.Errors++
		e.File = b.file
		b.out = e.AppendJSON(b.out)
	default:
		b.out = e.AppendJSON(b.out)
	}
	b.out = append(b.out, '\n')
}

func (s *streamWriter) flush() error {
	if len(s.out) == 0 {
		return nil
	}
	_, err := s.w.Write(s.out)
	s.out = s.out[:0]
	return err
}

func (s *streamWriter) Write(b []byte) (int, error) {
	if err := s.ctx.Err(); err != nil {
		return 0, err
	}
	if err := s.spread(b); err != nil {
		return 0, err
	}
	return len(b), s.flush()
}

func (s *streamWriter) readRaw(r io.Reader) (rerr, err error) {
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	if s.kept && s.ahead == nil && spreadProcs() > 1 {
		s.kept = false
		s.startAhead(r)
	}
	if s.ahead != nil {
		if rerr, err, ok := s.readAhead(); ok {
			return rerr, err
		}
	}
	if s.spreads() {
		// Read beside the Parser: a piece spread over forks is copied
		// into theirs.
		if s.piece == nil {
			s.piece = make([]byte, pieceSize)
		}
		n, rerr := r.Read(s.piece)
		if n > 0 {
			if err := s.spread(s.piece[:n]); err != nil {
				return rerr, err
			}
		}
		return rerr, s.flush()
	}
	if rerr, err = s.p.readFrom(r); err != nil {
		return rerr, err
	}
	return rerr, s.flush()
}

func (s *streamWriter) WriteReasoning(b []byte) error {
	if err := s.p.WriteReasoning(b); err != nil {
		return err
	}
	return s.flush()
}

func (s *streamWriter) NativeCall(id, name string, args []byte) error {
	if err := s.p.NativeCall(id, name, args); err != nil {
		return err
	}
	return s.flush()
}
