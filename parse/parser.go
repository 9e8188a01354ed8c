package parse

// The Parser: its state, its API (Write, Close, native calls and
// reasoning) and the scan loop that hands each marker to its handler.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/toolcall/toolcall/internal/byteset"
	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/tools/event"
)

// Limits that keep memory bounded whatever the model writes.
const (
	// textSplit is where a long run of prose or reasoning is cut into
	// several events: at the first newline after this many bytes, or hard
	// at twice as many. The cut depends only on the text, never on how the
	// input was chunked, so output is deterministic.
	textSplit = 64 << 10
	// openingSplit is textSplit before any event has been written: a
	// forced-open reasoning block (a </think> with no <think>) turns all
	// the text before it into reasoning, so the parser waits longer before
	// committing to prose.
	openingSplit = 1 << 20
	// maxBlock bounds one tool call, think block header or JSON object;
	// past it the marker is taken as prose.
	maxBlock = 64 << 20
	// maxRaw bounds the raw text quoted in a parse_error.
	maxRaw = 4 << 10
)

// mode is what the bytes at the scan position are.
type mode int

const (
	modeProse     mode = iota
	modeReasoning      // inside a think block; closer names its end
	modeFence          // inside a fenced code block that holds no calls
	modeAnswer         // inside an explicit final-answer block
)

var errClosed = errors.New("parse: write after close")

// Parser turns model text into events as it arrives. Write it the model's
// output in pieces of any size; Close it at the end of the output. It calls
// emit for each event, in order, the moment the event is complete.
//
// A Parser is not safe for concurrent use.
type Parser struct {
	opts Options
	emit func(*Event) error
	ev   Event // reused for every emit

	buf  []byte
	base int64 // stream offset of buf[0]
	pos  int   // bytes before pos are decided
	seg  int   // start of the pending prose, reasoning or answer text
	// lineAt is the end of the last block consumed: the position right
	// after it counts as the start of a line, as does the start of input.
	lineAt int

	mode         mode
	fenceTicks   int      // modeFence: backticks of the opening fence
	closers      []string // modeReasoning, modeAnswer: the tokens that end the block
	reasonFormat string
	// section is the format whose call section is open (Kimi, DeepSeek,
	// MiniMax M2, <tool_calls>): inside it, JSON may start anywhere and
	// the section's own separators are not prose.
	section string

	// next caches, per trigger byte, its next position at or after
	// searched[k]; -1 when there is none before searched[k]. With
	// oneScan, next[0] and searched[0] are kept for all the triggers
	// together instead.
	next     [len(triggers)]int
	searched [len(triggers)]int
	ntrig    int // how many of triggers are looked for
	trigSet  *byteset.Set
	oneScan  bool // oneScan when the Parser was made

	// blockStart is where the block being parsed starts, including any
	// text before its marker that belongs to it ("function call" before
	// GigaChat's <|role_sep|>); prose before it is flushed first.
	blockStart int

	nextID  int
	written bool // an event other than leading text has been emitted, or text was flushed
	closed  bool
	started bool // the start of the output has been looked at
	// prose is set once a text event with more than whitespace is out:
	// from then on, bare JSON must be the rest of the output to be a call.
	prose bool
	// explicitOnly limits bare JSON to the forms that say they are calls
	// (the JSONL protocol, envelopes), not plain {"name", "arguments"}.
	explicitOnly bool
	// outputStart: the bare JSON being read is the first thing in the
	// output, where llama.cpp's {"response": …} is the answer.
	outputStart bool
	// calls counts tool_call and parse_error events; afterCall is the end
	// of the last block that wrote one, where a late closing tag is dropped.
	calls     int
	afterCall int
	// waitAt is a block start that needed more input when the buffer was
	// waitLen long; -1 when none.
	waitAt, waitLen int
	// waitBytes, set by the reader of the block at waitAt as it asks for
	// more (waitFor), holds the bytes one of which must arrive before
	// reading the block again can end otherwise; waitFrom is the output
	// offset from which none has. "" when not set.
	waitBytes string
	waitFrom  int64
	waitEnd   int64 // the output offset the input must end before
	// waitPrefix, set by waitForPrefix, is a marker the input so far
	// ends with the start of, at output offset waitPrefixAt.
	waitPrefix   string
	waitPrefixAt int64
	// bareCallAt is where a think block ended that a call may follow
	// without its start marker (Spec.AfterReasoning: Gemma 4's thought
	// channel), read by bareCall; -1 when none. afterThink is what the
	// open think block's end would set bareCall to.
	bareCallAt           int
	bareCall, afterThink *bareReader
	// ids holds "call_N" for the numbers from idsFirst on, idEnds where
	// each ends in it: see numberedID.
	ids      string
	idsFirst int
	idsN     int // how many ids are in it
	idEnds   [idBatch]int
	idBuf    []byte
	// paramTypes are ParamType's answers for the tool typesOf (paramType).
	paramTypes []keptType
	typesOf    string
	// lastName is the last tool name read; models call the same tools
	// again and again, so it saves a string per call.
	lastName string
	// plainName is lastName, once emitCall has found it to hold no
	// special token: the same name again is not looked through again.
	// (It is not any name emitCall gets, which may be a view of buf.)
	plainName string
	// lastRepairs and its names, for the same reason: a model makes the
	// same mistakes again and again. The names are never modified.
	lastRepairs     repairSet
	lastRepairNames []string
	// modelIDs holds the ids of the form call_N that the model gave, so
	// that numbered ids never repeat one.
	modelIDs map[string]bool
	scratch  []byte
	// reasoning gathers what WriteReasoning was given, until it is emitted.
	reasoning []byte
	cands     []candidate
	args      argsBuilder  // tagged arguments being assembled
	tagged    taggedResume // what taggedArgs read of a call still arriving
	scanner   jsonScanner
	scanFrom  int // the block start scanner state belongs to; -1 when none
	decoded   decoded
	members   jsonMembers // where decoded's members lie, when decoded.members
	lean      leanCopy    // the whitespace readLean found
	// noExp says the arguments of the next emitCall were transcoded with
	// no number in exponent form (repairResult.exp), so none can be out of
	// a float64's range; emitCall clears it.
	noExp bool
	// flatArgs says more of them: leanObject read them as an object one
	// level deep with no escape in it (decoded.flat), which emitCall
	// takes as they are. emitCall clears it.
	flatArgs bool
	// closerRepairs is what reading the block's end marker repaired
	// (closerUnclosed), for the calls emitCall writes from the block;
	// dispatch clears it as each block starts.
	closerRepairs repairSet
	// extra holds the markers of Options.Syntax, checked before the
	// built-in ones; nil without a syntax.
	extra *markerIndex
	// words are the format files' word starts (wordAt).
	words []marker
	// inGeneric: the generic reader (generic_block.go) is emitting, and
	// its own parse_errors are not read again.
	inGeneric bool
	err       error
}

// NewParser returns a Parser that calls emit for each event. The Event
// passed to emit, and the slices in it, are only valid during the call.
func NewParser(opts Options, emit func(*Event) error) (*Parser, error) {
	buildMarkers()
	prompt, err := checkOptions(opts)
	if err != nil {
		return nil, err
	}
	p := &Parser{opts: opts, emit: emit, nextID: opts.FirstID, scanFrom: -1, afterCall: -1, waitAt: -1, bareCallAt: -1, extra: extraIndex(opts), words: fileWords(opts)}
	// Room for a short response from the start: a Parser per response,
	// fed a token at a time, would grow its buffer a few bytes at a time.
	p.buf = make([]byte, 0, 1<<10)
	if prompt != "" {
		// The prompt's tail goes first, at negative offsets: text there
		// is never emitted (see flushText), offsets stay the output's.
		p.buf = append(p.buf, prompt...)
		p.base = -int64(len(prompt))
	}
	p.ntrig, p.trigSet, p.oneScan = len(triggers)-knownTriggers, triggerSets[0], oneScan
	if opts.KnownTool != nil {
		p.ntrig, p.trigSet = len(triggers), triggerSets[1]
	}
	p.resetTriggers()
	return p, nil
}

// Calls returns how many tool calls have been emitted.
func (p *Parser) Calls() int { return p.nextID - p.opts.FirstID }

// Write parses the next piece of model output.
func (p *Parser) Write(b []byte) (int, error) {
	if err := p.ready(); err != nil {
		return 0, err
	}
	p.compact()
	p.buf = append(p.buf, b...)
	p.err = p.run(false)
	return len(b), p.err
}

// readSize is the most readFrom asks r for at once: what a pipe grown as
// toolcall grows its own (cmd/toolcall/pipe_linux.go) can hand over in
// one read.
const readSize = 256 << 10

// readFrom is Write with one Read of r in place of b: r reads straight
// into the buffer, which saves copying the input from a buffer of the
// caller's. rerr is r's error, err the Parser's.
func (p *Parser) readFrom(r io.Reader) (rerr, err error) {
	if err := p.ready(); err != nil {
		return nil, err
	}
	p.compact()
	p.buf = slices.Grow(p.buf, readSize)
	n, rerr := r.Read(p.buf[len(p.buf) : len(p.buf)+readSize])
	if n > 0 {
		p.buf = p.buf[:len(p.buf)+n]
		p.err = p.run(false)
	}
	return rerr, p.err
}

// ready returns the error that stops more input, after emitting the
// reasoning WriteReasoning gathered, which comes before it.
func (p *Parser) ready() error {
	if p.closed {
		return errClosed
	}
	if p.err != nil {
		return p.err
	}
	p.err = p.flushServerReasoning()
	return p.err
}

// WriteReasoning emits reasoning a server has already separated from the
// content (reasoning_content, thinking), after any prose before it.
func (p *Parser) WriteReasoning(b []byte) error {
	if p.err != nil {
		return p.err
	}
	if len(b) == 0 {
		return nil
	}
	// Prose decided so far goes first; a partial marker stays pending.
	if p.mode == modeProse {
		if err := p.flushText(p.pos); err != nil {
			return err
		}
	}
	// Servers stream reasoning a token at a time: gather it into one
	// event, written when something else arrives (or it grows long).
	p.reasoning = append(p.reasoning, b...)
	if len(p.reasoning) >= textSplit {
		return p.flushServerReasoning()
	}
	return nil
}

// flushServerReasoning emits the reasoning gathered by WriteReasoning.
func (p *Parser) flushServerReasoning() error {
	if len(p.reasoning) == 0 {
		return nil
	}
	err := p.put(event.TypeReasoning, p.reasoning, FormatNative)
	p.reasoning = p.reasoning[:0]
	return err
}

// NativeCall emits a call the model server parsed itself. args is the raw
// JSON value it gave: an object, a string holding one, or nothing.
func (p *Parser) NativeCall(id, name string, args []byte) error {
	if p.err != nil {
		return p.err
	}
	if p.mode == modeProse {
		if err := p.flushText(p.pos); err != nil {
			return err
		}
	}
	if err := p.flushServerReasoning(); err != nil {
		return err
	}
	args = bytes.TrimSpace(args)
	if len(args) > 0 && args[0] == '{' {
		// Servers pretty-print objects; an event is one line.
		out, _, err := appendJSON(nil, args, true, false)
		if err != nil {
			p.ev = Event{Type: event.TypeParseError, Error: fmt.Sprintf("call to %q: the server sent arguments that are not valid JSON: %v", name, err), Raw: clip.Prefix(args, maxRaw), Offset: p.base + int64(p.pos), Format: FormatNative}
			p.written = true
			return p.emit(&p.ev)
		}
		args = out
	}
	return p.emitCall(id, name, args, FormatNative, 0, p.base+int64(p.pos), args)
}

// Close parses what is left at the end of the output: a partial marker
// becomes prose, an unfinished call a parse_error, an unclosed think block
// reasoning.
func (p *Parser) Close() error {
	if p.closed {
		return p.err
	}
	p.closed = true
	if p.err != nil {
		return p.err
	}
	if p.err = p.flushServerReasoning(); p.err != nil {
		return p.err
	}
	p.err = p.run(true)
	if p.err == nil {
		p.err = p.flushMode(len(p.buf), true)
	}
	return p.err
}

// compact drops the decided bytes from the front of the buffer once they
// are a large part of it, so the buffer stays near the largest pending
// event.
func (p *Parser) compact() {
	keep := p.seg
	if p.scanFrom >= 0 {
		keep = min(keep, p.scanFrom)
	}
	if p.lineAt < keep {
		// Of the text written out since the last block, only what
		// atLineStart reads back from keep is needed: the bytes from the
		// last one that ends its walk (not a space, ';' or ','). Keeping
		// all of it back to lineAt held every byte of prose after a call.
		q := keep
		for q > p.lineAt && (p.buf[q-1] == ' ' || p.buf[q-1] == '\t' || p.buf[q-1] == ';' || p.buf[q-1] == ',') {
			q--
		}
		keep = p.lineAt
		if q > p.lineAt {
			keep = q - 1
		}
	}
	// Moving the pending bytes costs their length, so wait until a lot is
	// decided: then the copy is small next to the bytes it frees.
	if keep == 0 || keep < len(p.buf) && keep < 256<<10 {
		return
	}
	n := copy(p.buf, p.buf[keep:])
	p.tagged.kept = false
	p.buf = p.buf[:n]
	p.base += int64(keep)
	p.pos -= keep
	p.seg -= keep
	p.lineAt -= keep
	if p.afterCall >= 0 {
		p.afterCall -= keep
	}
	if p.waitAt >= 0 {
		p.waitAt -= keep
		p.waitLen -= keep
	}
	if p.bareCallAt >= 0 {
		p.bareCallAt -= keep
	}
	if p.scanFrom >= 0 {
		p.scanFrom -= keep
	}
	if d := &p.decoded; d.out != nil {
		d.start -= keep
		d.end -= keep
		if d.lean {
			d.out = p.buf[d.start:d.end:d.end]
		}
	}
	for k := range p.next {
		if p.next[k] >= 0 {
			p.next[k] -= keep
		}
		p.searched[k] -= keep
		if p.searched[k] < 0 {
			p.searched[k], p.next[k] = 0, -1
		}
	}
}

// noWaitFor turns waitFor's skipping off, and taggedArgs' carrying on
// from the parameters it read before (taggedResume), for the test that
// they change nothing but the work.
var noWaitFor bool

// waitFor notes, as a reader returns needMore, that reading its block
// again cannot end otherwise until one of the bytes in set arrives at or
// after buf[from] (a closer, an end marker's first byte): run does not
// read it again until then. from must be early enough for a marker begun
// before the end of the input and cut off by it. Skipping a reading is as
// if the pieces had come as one, which the parser reads the same
// (FuzzParse); set must hold every byte that can end the block, or its
// event would come a piece late (TestWaitForTiming).
func (p *Parser) waitFor(set string, from int) {
	p.waitBytes, p.waitFrom, p.waitEnd = set, p.base+int64(from), math.MaxInt64
}

// waitForWithin is waitFor for a reader that gives up once the input has
// reached buf[end] without one of the bytes.
func (p *Parser) waitForWithin(set string, from, end int) {
	p.waitBytes, p.waitFrom, p.waitEnd = set, p.base+int64(from), p.base+int64(end)
}

// waitForTag is waitFor for the tag t, searched for from buf[from] on: a
// start of it that ends the input is waited out with waitForPrefix.
func (p *Parser) waitForTag(t string, from int) {
	for s := max(from, len(p.buf)-len(t)+1); s < len(p.buf); s++ {
		if p.buf[s] == t[0] && string(p.buf[s:]) == t[:len(p.buf)-s] {
			p.waitForPrefix(t, s)
			return
		}
	}
	p.waitFor(t[:1], len(p.buf))
}

// waitForPrefix notes, as a reader returns needMore because the input so
// far ends inside the marker t that starts at buf[at], that reading the
// block again cannot end otherwise while the input still ends inside it:
// run does not read it again until the marker is whole or turns out not
// to be it. A reader calls it only where nothing it read before at
// depends on what follows.
func (p *Parser) waitForPrefix(t string, at int) {
	p.waitPrefix, p.waitPrefixAt = t, p.base+int64(at)
}

// anyByteOf reports whether b holds a byte of set: a few passes of
// IndexByte over a few bytes, with set's bytes taken as bytes.
func anyByteOf(b []byte, set string) bool {
	for k := 0; k < len(set); k++ {
		if bytes.IndexByte(b, set[k]) >= 0 {
			return true
		}
	}
	return false
}

// jsonEnders are the bytes that can end a JSON value cut off by the end of
// the input so far, or the block around it, for waitFor: a closer (ASCII,
// or fullwidth, whose bytes start 0xEF) or a marker; jsonEndBack is how
// far back such a marker or closer may have begun.
const (
	jsonEnders  = "}])<\xef"
	jsonEndBack = 32
)

// status is what a block handler found.
type status int

const (
	matched  status = iota // the block was consumed; end says how far
	noMatch                // not a marker after all: the byte is prose
	needMore               // the input ends inside the block; try again with more
	prose                  // prose up to end (inline code, a JSON data object)
)

// run scans from pos as far as the buffered input allows.
func (p *Parser) run(eof bool) error {
	if !p.started && p.base == 0 {
		// A byte order mark is not part of the output.
		const bom = "\xef\xbb\xbf"
		if len(p.buf) < len(bom) && !eof && bytes.HasPrefix([]byte(bom), p.buf) {
			return nil
		}
		if bytes.HasPrefix(p.buf, []byte(bom)) && p.pos == 0 {
			p.pos, p.seg, p.lineAt = len(bom), len(bom), len(bom)
		}
	}
	if !p.started {
		end, st, err := p.functionaryStart(eof)
		if err != nil || st == needMore {
			return err
		}
		p.started = true
		if st == matched {
			p.pos, p.seg, p.lineAt = end, end, end
		}
	}
	for {
		switch p.mode {
		case modeFence:
			if done, err := p.scanFence(eof); err != nil || !done {
				return err
			}
			continue
		case modeReasoning, modeAnswer:
			if done, err := p.scanClosed(eof); err != nil || !done {
				return err
			}
			continue
		}
		i := p.nextTrigger(p.pos)
		// At the end of input nothing can follow a thought channel that
		// ends the text: no call is looked for past the last byte.
		if g := p.bareCallAt; g >= p.pos && (i < 0 || g < i) && (g < len(p.buf) || !eof) {
			i = g
		} else if g >= 0 && (g < p.pos || g >= len(p.buf)) {
			p.bareCallAt = -1
		}
		if i < 0 {
			p.pos = len(p.buf)
			return p.splitLong(modeProse)
		}
		p.pos = i
		if err := p.splitLong(modeProse); err != nil {
			return err
		}
		// A large block that arrives a token at a time is not parsed again
		// for every token: only once it has grown by an eighth, which keeps
		// the total work linear. Small blocks are parsed on every write.
		if !eof && i == p.waitAt && len(p.buf)-i > 4<<10 && len(p.buf) < p.waitLen+(p.waitLen-i)/8 {
			return nil
		}
		// Nor, a token at a time, while none of the bytes that could end it
		// has come (waitFor).
		if !eof && i == p.waitAt && len(p.buf)-i <= maxBlock && !noWaitFor {
			if p.waitBytes != "" && p.base+int64(len(p.buf)) < p.waitEnd && !anyByteOf(p.buf[p.waitFrom-p.base:], p.waitBytes) {
				// None began a marker either: the next look starts here.
				p.waitFrom = p.base + int64(len(p.buf))
				return nil
			}
			if t := p.waitPrefix; t != "" {
				if rest := p.buf[p.waitPrefixAt-p.base:]; len(rest) < len(t) && string(rest) == t[:len(rest)] {
					return nil
				}
			}
		}
		p.waitBytes, p.waitPrefix = "", ""
		p.blockStart = i
		calls := p.calls
		end, st, err := p.dispatch(i, eof)
		if err != nil {
			return err
		}
		p.waitAt = -1
		switch st {
		case needMore:
			if len(p.buf)-i > maxBlock {
				p.pos = i + 1
				continue
			}
			p.waitAt, p.waitLen = i, len(p.buf)
			return nil
		case noMatch:
			p.pos = i + 1
		case prose:
			p.pos = end
		case matched:
			if p.mode == modeProse {
				if err := p.flushText(p.blockStart); err != nil {
					return err
				}
			}
			p.pos = end
			p.seg = end
			p.lineAt = end
			p.scanFrom = -1
			p.decoded = decoded{} // a reading of a body this block held
			if p.calls > calls {
				p.afterCall = end
			}
		}
	}
}

// splitLong emits the pending text once it is long, so that memory stays
// bounded on a long answer. The cut is at a newline when there is one.
func (p *Parser) splitLong(m mode) error {
	for {
		limit := textSplit
		if !p.written && m == modeProse {
			limit = openingSplit
		}
		if p.pos-p.seg < limit {
			return nil
		}
		cut := -1
		if j := bytes.IndexByte(p.buf[p.seg+limit:p.pos], '\n'); j >= 0 {
			cut = p.seg + limit + j + 1
		} else if p.pos-p.seg >= 2*limit {
			cut = p.seg + 2*limit
			if cut == len(p.buf) {
				// Whether cut splits a character depends on the byte after
				// it, which has not arrived: wait for it, or for Close,
				// which emits the rest whole.
				return nil
			}
			// Back off to a character start, but never more than one
			// character: bytes that are not UTF-8 are cut where they are.
			for back := 0; back < utf8.UTFMax-1 && !utf8.RuneStart(p.buf[cut]); back++ {
				cut--
			}
			if !utf8.RuneStart(p.buf[cut]) {
				cut = p.seg + 2*limit
			}
		} else {
			return nil
		}
		if err := p.flushMode(cut, false); err != nil {
			return err
		}
	}
}
