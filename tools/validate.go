package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/internal/editdist"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools/redact"
	"github.com/toolcall/toolcall/tools/schema"
)

// ToolSet is where validate looks tools up; catalog.Catalog implements it.
type ToolSet interface {
	// Lookup finds a tool by its name or an alias (such as the
	// provider-safe name a catalog gave it).
	Lookup(name string) (*Tool, bool)
	// Names lists every tool's name, sorted, for suggestions.
	Names() []string
}

// ValidateOptions configures Validate.
type ValidateOptions struct {
	Policy Policy
	// Coerce converts strings that spell exactly what the schema wants
	// ("42" for an integer); see CheckArguments.
	Coerce bool
	// Scratch is the directory of saved outputs that "ref:<id>" string
	// arguments name (--scratch). Refs are resolved before the schema is
	// checked, so the check is of what the tool will get; with no
	// directory, a ref is an error.
	Scratch string
	// MaxRefBytes bounds what the refs of one call pass, all together,
	// as JSON strings (DefaultMaxRefBytes when 0).
	MaxRefBytes int64
	// MaxLine is the longest input line read (DefaultMaxLine when 0); a
	// longer one is answered with a parse_error event and skipped.
	MaxLine int
	// Warn, when set, hears about input lines that are not events, and
	// (once per tool) about a schema that does not compile, with the line
	// number.
	Warn func(line int, err error)
	// Redactor removes secrets from what an observation says (a
	// validation error may quote an argument); nil: one for the
	// environment's secrets.
	Redactor *redact.Redactor
}

// ValidateStats counts what Validate saw.
type ValidateStats struct {
	Events int // input lines that were events, calls included
	Calls  int // tool_call events
	Failed int // calls answered with an error observation
	// TooLong counts lines longer than MaxLine, each answered with a
	// parse_error.
	TooLong int
	// Skipped counts lines that are not events (not JSON, not an object,
	// no "type"), each reported through Warn and dropped.
	Skipped int
}

// listToolsUpTo is how many tools an unknown-tool observation still lists
// by name; a longer list would drown the suggestions.
const listToolsUpTo = 20

// MaxCallID is the longest call id accepted, in bytes: far more than any
// id a model or server writes (call_1, a UUID, a 24-character OpenAI id).
const MaxCallID = 256

// badCallID says what is wrong with a call id, or "" when it is fine.
func badCallID(id string) string {
	switch {
	case strings.IndexByte(id, 0) >= 0:
		return fmt.Sprintf("%s holds a NUL character", quoteStart(id))
	case len(id) > MaxCallID:
		return fmt.Sprintf("%s is %d bytes long, more than the %d an id may have", quoteStart(id), len(id), MaxCallID)
	}
	return ""
}

// quoteStart quotes s, or its first 40 bytes and an ellipsis.
func quoteStart(s string) string {
	const show = 40
	if len(s) <= show {
		return strconv.Quote(s)
	}
	return strconv.Quote(clip.Prefix(s, show)) + clip.Ellipsis
}

// maxReportedErrors caps the schema errors one observation carries; a
// thousand-item array of wrong types does not need a thousand lines.
const maxReportedErrors = 50

// Validate reads events from r and writes them to w, checking each
// tool_call: the tool must exist and be available, the
// policy must permit it, and its arguments must pass its schema. A call
// that passes is written again with its tool's canonical name, normalized
// arguments and "validated"; one that fails is written as the model wrote
// it with "validated": false, followed by a tool_observation with
// is_error, addressed to the model. A call already so marked was refused
// by an earlier stage, whose observation follows it: it is copied. Every other
// event is copied unchanged. Input lines that are not JSON objects with a
// string "type" go to opts.Warn and are skipped.
//
// Fields of a tool_call other than id, name, arguments, format, repaired
// and repairs are not carried over: the call is written afresh, so that the
// output of validate is the same whatever an earlier stage added (running
// validate twice gives the same result). A call without an id gets
// call_N, N counting the calls in this stream. An observation takes its id
// and name from the call, the name as the model wrote it (an alias, or an
// unknown name), so that it answers that call.
//
// Kinds: unknown_tool (no such tool, or not available here), permission
// (the policy refuses it), validation (the arguments fail the schema), and
// execution for a fault in the tool's definition that the model cannot fix
// by changing its call: a schema that does not compile, or no schema
// without a no_schema_mode.
//
// Output lines are whole in every Write: the lines answering one burst of
// input go out together, as soon as the input pauses (or 64 KiB have
// gathered), so a reader of a pipe sees each event without delay and a
// killed process leaves no half line. Validate stops at the end of r,
// on a read or write error, or when ctx is done (between lines).
func Validate(ctx context.Context, r io.Reader, w io.Writer, set ToolSet, opts ValidateOptions) (ValidateStats, error) {
	if opts.MaxLine <= 0 {
		opts.MaxLine = DefaultMaxLine
	}
	if opts.Redactor == nil {
		opts.Redactor = redact.New(os.Environ(), nil)
	}
	v := validator{set: set, opts: opts, w: w, warned: map[*Tool]bool{}, redactor: opts.Redactor}
	err := readLines(r, lineOptions{max: opts.MaxLine, tooLong: v.longLine, drained: v.flush}, func(line []byte, n int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return v.line(line, n)
	})
	if ferr := v.flush(); err == nil {
		err = ferr
	}
	var werr *writeError
	switch {
	case err == nil:
	case errors.As(err, &werr):
		err = fmt.Errorf("writing events: %w", werr.err)
	case errors.Is(err, ctx.Err()):
	default:
		err = fmt.Errorf("reading events: %w", err)
	}
	return v.stats, err
}

type validator struct {
	set    ToolSet
	opts   ValidateOptions
	w      io.Writer
	buf    []byte // the event being written
	out    []byte // whole lines not yet written
	stats  ValidateStats
	warned map[*Tool]bool // tools whose schema error was reported already
	// redactor removes secrets from refusals.
	redactor *redact.Redactor
}

// writeError marks an error from the output, to tell it from a read error.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

func (v *validator) warn(n int, err error) {
	if v.opts.Warn != nil {
		v.opts.Warn(n, err)
	}
}

// flushSize is how much output gathers before it is written even while
// more input is at hand.
const flushSize = 64 << 10

// emit adds v.buf as a line to the output.
func (v *validator) emit() error {
	v.out = append(append(v.out, v.buf...), '\n')
	if len(v.out) >= flushSize {
		return v.flush()
	}
	return nil
}

// flush writes the gathered lines in one Write.
func (v *validator) flush() error {
	if len(v.out) == 0 {
		return nil
	}
	_, err := v.w.Write(v.out)
	v.out = v.out[:0]
	if err != nil {
		return &writeError{err}
	}
	return nil
}

// longLine answers a line longer than MaxLine.
func (v *validator) longLine(l LongLine) error {
	v.stats.TooLong++
	v.buf = l.AppendJSON(v.buf[:0], v.opts.MaxLine)
	return v.emit()
}

func (v *validator) line(line []byte, n int) error {
	typ, err := EventType(line)
	if err != nil {
		v.stats.Skipped++
		v.warn(n, fmt.Errorf("%w; line skipped", err))
		return nil
	}
	v.stats.Events++
	if typ != TypeToolCall {
		v.buf = append(v.buf[:0], line...)
		return v.emit()
	}
	v.stats.Calls++
	e, hasName := DecodeCallEvent(line)
	if e.Refused() {
		// An earlier stage refused it and the observation after it
		// answers it: checked again, it would be answered twice.
		v.buf = append(v.buf[:0], line...)
		return v.emit()
	}
	v.buf = v.call(v.buf[:0], e.Call, hasName, n, e.Normalized)
	return v.emit()
}

// verdict is what checking one tool_call decided: the call refused with an
// observation, or passed with its tool and checked arguments.
type verdict struct {
	call    Call // ID filled in; Name the tool's own once passed
	tool    *Tool
	checked schema.Checked
	// normalized lists what the sidecar's aliases changed, in the order
	// of the arguments (Tool.normalize).
	normalized []Normalization
	// refusal, when not nil, answers the call instead of running it.
	refusal *Observation
	// consent, when not empty, is why the policy refuses the call unless a
	// person approves it (an unsafe tool, or human-approval mode); the
	// call otherwise passed. Validate refuses such a call; exec may ask.
	consent string
	// input is the arguments the tool gets: call.Arguments with every ref
	// replaced by the text it names (the same bytes when there is none).
	input []byte
	// rewrittenBy names the before-call hooks that replaced the
	// arguments, in order (hooks.go).
	rewrittenBy []string
}

// call checks one call, read from its line, and appends what replaces
// it: the call as checked, and the observation of a refusal.
func (v *validator) call(dst []byte, c Call, hasName bool, n int, earlier []Normalization) []byte {
	vd := v.redacted(v.decideCall(c, hasName, n, false))
	vd.keepNormalized(earlier)
	dst = appendValidated(dst, &vd, v.redactor)
	if vd.refusal != nil {
		v.stats.Failed++
		dst = vd.refusal.AppendJSON(append(dst, '\n'))
	}
	return dst
}

// keepNormalized keeps what an earlier stage's aliases changed (the
// "normalized" of the line read) on a call that passes with nothing left
// to normalize, so that parse | validate | exec says what parse | exec
// says.
func (vd *verdict) keepNormalized(earlier []Normalization) {
	if vd.refusal == nil && len(vd.normalized) == 0 {
		vd.normalized = earlier
	}
}

// verdict is what exec decides about a call before anyone is asked: as
// Validate decides, refusal redacted, and a tool that is only a
// definition refused too (exec cannot run it; validate passes it).
func (v *validator) verdict(c Call, hasName bool, n int, askLater bool) verdict {
	vd := v.redacted(v.decideCall(c, hasName, n, askLater))
	if vd.refusal == nil && vd.tool.Definition {
		vd.refusal = v.notRunnable(vd.call, vd.tool)
	}
	return vd
}

// redacted is vd with its refusal, if any, redacted: a refusal may quote
// the arguments.
func (v *validator) redacted(vd verdict) verdict {
	if vd.refusal != nil {
		o := redactObservation(v.redactor, *vd.refusal)
		vd.refusal = &o
	}
	return vd
}

// decideCall checks the call c, as decoded by DecodeCall (or handed over
// as a value in the same shape), in the order of Validate's doc. n is
// its line, for warnings.
func (v *validator) decideCall(c Call, hasName bool, n int, askLater bool) verdict {
	// A refused call keeps its arguments as written, for its tool_call
	// line; one that passes carries the checked arguments.
	args := c.Arguments
	if c.ID == "" {
		c.ID = "call_" + strconv.Itoa(v.stats.Calls)
	}
	fail := func(kind ErrorKind, message, content string, details []byte) verdict {
		return verdict{call: c, refusal: refusal(c, kind, message, content, details)}
	}

	// a. The tool must exist and be available here.
	t, ok := v.set.Lookup(c.Name)
	if !hasName || !ok {
		msg, details := v.unknown(c.Name, hasName)
		return fail(KindUnknownTool, msg, msg, details)
	}
	if t.Unavailable != "" {
		msg, details := v.unavailable(c.Name, t)
		return fail(KindUnknownTool, msg, msg, details)
	}
	// b. The policy must permit it; a person may still approve what needs
	// consent, so that is decided last, once the call is otherwise good.
	why, consentable := v.opts.Policy.check(t)
	if why != "" && (!consentable || !askLater) {
		return verdict{call: c, refusal: permissionRefusal(c, why)}
	}
	// A tool without a schema needs a no-schema mode; the loader enforces
	// this, and so do we for tools made some other way (fail closed).
	if t.InputSchema == nil && (!t.AllowNoSchema || !validNoSchemaMode(t.NoSchemaMode)) {
		msg := fmt.Sprintf("tool %q has no input schema and no valid no_schema_mode, so it cannot be called", t.Name)
		return fail(KindExecution, msg, msg+". This is a fault in the tool's definition, not in your call; use another tool or answer without it.", nil)
	}
	// c. The call must be well formed: its id is the model's to choose, so
	// a bad one is the model's error, found here before it reaches the
	// tool's environment (which cannot carry a NUL, nor a name without
	// bound). Then the arguments must pass the schema, refs resolved first:
	// the schema judges the value the tool will get, wherever it came from.
	if why := badCallID(c.ID); why != "" {
		msg := "the call's id " + why
		return fail(KindValidation, msg, msg+`. Give the call a short "id" without NUL characters, or none (one is then assigned), and call again.`, nil)
	}
	args, normalized, collision := t.normalize(args)
	if collision != nil {
		msg, content, details := validationReport(t.Name, []schema.Error{*collision})
		return fail(KindValidation, msg, content, details)
	}
	refs, err := measureRefs(args, v.opts.Scratch, v.opts.MaxRefBytes)
	if err != nil {
		msg := err.Error()
		return fail(KindValidation, msg, msg+". Fix the argument and call the tool again.", nil)
	}
	checked, err := t.checkArguments(args, v.opts.Coerce, refs)
	if err != nil {
		// A schema that does not compile is the tool's fault, not the
		// model's: kind execution, as for a tool that fails when run. The
		// model cannot fix it by changing its call, and is told so.
		if !v.warned[t] {
			v.warned[t] = true
			v.warn(n, err)
		}
		msg := fmt.Sprintf("tool %q cannot be called: its input schema does not compile", t.Name)
		return fail(KindExecution, msg, msg+". This is a fault in the tool's definition, not in your call; use another tool or answer without it.", nil)
	}
	if len(checked.Errors) > 0 {
		msg, content, details := validationReport(t.Name, fromAliases(fromRefs(checked.Errors, refs.used()), normalized))
		return fail(KindValidation, msg, content, details)
	}
	// d. The call passes, under the tool's own name. It is written with
	// its refs, as the model gave them; the tool gets what they name.
	c.Name = t.Name
	c.Arguments = checked.Arguments
	if refs != nil {
		c.Arguments = withRefs(args, checked)
	}
	return verdict{call: c, tool: t, checked: checked, normalized: normalized, consent: why, input: checked.Arguments}
}

// fromRefs says, in each error about a value that a ref stood for, which
// ref it came from: the model wrote the ref, not the value.
func fromRefs(errs []schema.Error, refs []refUse) []schema.Error {
	for i := range errs {
		for _, r := range refs {
			if p := errs[i].Pointer; p == r.Pointer || strings.HasPrefix(p, r.Pointer+"/") {
				errs[i].Message += fmt.Sprintf(" (the value came from %s, a saved output; pass a value that fits instead)", r.Ref)
				break
			}
		}
	}
	return errs
}

// withRefs is the arguments as written, refs and all, in the compact form
// CheckArguments gives, with its coercions. A ref stands for one string,
// so the pointers of the checked arguments hold here too.
func withRefs(args []byte, checked schema.Checked) []byte {
	if out, ok := schema.Recode(args, checked.Coerced); ok {
		return out
	}
	return checked.Arguments
}

// refusal is the observation that answers a call instead of a result.
func refusal(c Call, kind ErrorKind, message, content string, details []byte) *Observation {
	status := StatusError
	if kind == KindPermission {
		status = StatusBlocked
	}
	return &Observation{ID: c.ID, Name: c.Name, Content: content, IsError: true, Status: status,
		Error: &ToolError{Kind: kind, Message: message, Details: details}}
}

// permissionRefusal refuses a call the policy does not permit.
func permissionRefusal(c Call, why string) *Observation {
	// Policy reasons start with "tool"; the model reads a sentence.
	content := strings.ToUpper(why[:1]) + why[1:] + ". Do not call it again; use another tool or answer without it."
	return refusal(c, KindPermission, why, content, nil)
}

// appendValidated appends the tool_call event of a checked call, with
// what the check said: "validated" and what coercion changed for a call
// that passed; "validated": false for one refused, as the model wrote
// it, so that the observation after it answers a call the reader sees,
// redacted by r as that observation is (the model may have written a
// secret in the arguments the observation quotes).
func appendValidated(dst []byte, vd *verdict, r *redact.Redactor) []byte {
	e := validatedEvent(vd, r)
	return e.AppendJSON(dst)
}

// validatedEvent is the tool_call event appendValidated writes, as a
// value (Outcome.Checked).
func validatedEvent(vd *verdict, r *redact.Redactor) CallEvent {
	e := CallEvent{Call: vd.call, Checked: true}
	if vd.refusal != nil {
		e.ID, e.Name, e.Arguments = r.String(e.ID), r.String(e.Name), r.JSON(e.Arguments)
	} else {
		e.Validated, e.Coerced, e.Normalized = vd.checked.Validated, vd.checked.Coerced, vd.normalized
		if !e.Validated {
			e.NoSchemaMode = vd.tool.NoSchemaMode
		}
	}
	e.RewrittenBy = vd.rewrittenBy
	return e
}

func validNoSchemaMode(m string) bool {
	return m == NoSchemaReadOnly || m == NoSchemaHumanApproval || m == NoSchemaFull
}

// available lists the names of the tools on offer: available here and
// permitted by the policy without anyone's consent. Suggestions name only
// these, so that a model is never pointed at a tool it may not call.
func (v *validator) available() []string {
	var out []string
	for _, name := range v.set.Names() {
		if t, ok := v.set.Lookup(name); ok && t.Unavailable == "" && v.opts.Policy.permit(t) == "" {
			out = append(out, name)
		}
	}
	return out
}

// unknown words the observation for a call to a tool that does not exist.
func (v *validator) unknown(name string, hasName bool) (string, []byte) {
	names := v.available()
	var sb strings.Builder
	var sugg []string
	if hasName {
		sugg = editdist.Suggest(name, names)
		fmt.Fprintf(&sb, "Unknown tool %s.", jsonw.Quote(name))
	} else {
		sb.WriteString(`The call has no tool name: give the tool to call in "name".`)
	}
	writeChoices(&sb, sugg, names)
	return sb.String(), suggestionDetails(sugg)
}

// unavailable words the observation for a tool that exists but cannot run
// on this machine.
func (v *validator) unavailable(name string, t *Tool) (string, []byte) {
	names := v.available()
	sugg := editdist.Suggest(name, names)
	var sb strings.Builder
	fmt.Fprintf(&sb, "Tool %s is not available here: %s.", jsonw.Quote(name), strings.TrimSuffix(t.Unavailable, "."))
	writeChoices(&sb, sugg, names)
	return sb.String(), suggestionDetails(sugg)
}

// writeChoices adds the "did you mean" names and, for a short catalog,
// every tool that can be called.
func writeChoices(sb *strings.Builder, sugg, names []string) {
	if len(sugg) > 0 {
		fmt.Fprintf(sb, " Did you mean %s?", joinOr(sugg))
	}
	switch {
	case len(names) == 0:
		sb.WriteString(" No tools are available.")
	case len(names) <= listToolsUpTo:
		fmt.Fprintf(sb, " Available tools: %s.", strings.Join(names, ", "))
	}
}

// joinOr quotes names and joins them with commas and a final "or".
func joinOr(names []string) string { return joinQuoted(names, "or") }

// joinQuoted quotes names and joins them with commas and a final
// conjunction.
func joinQuoted(names []string, conj string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = jsonw.Quote(n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " " + conj + " " + q[len(q)-1]
}

// suggestionDetails is the details object of an unknown_tool error.
func suggestionDetails(sugg []string) []byte {
	d := []byte(`{"suggestions":[`)
	for i, s := range sugg {
		if i > 0 {
			d = append(d, ',')
		}
		d = jsonw.AppendString(d, s)
	}
	return append(d, "]}"...)
}

// validationReport words the observation for arguments that fail the
// schema: a one-line message, the text for the model listing every error
// (up to maxReportedErrors), and the errors as a details array.
func validationReport(tool string, errs []schema.Error) (string, string, []byte) {
	shown := errs
	if len(shown) > maxReportedErrors {
		shown = shown[:maxReportedErrors]
	}
	noun := "error"
	if len(errs) > 1 {
		noun = "errors"
	}
	msg := fmt.Sprintf("arguments of tool %q do not match its schema (%d %s): %s", tool, len(errs), noun, errs[0].Message)
	var sb strings.Builder
	fmt.Fprintf(&sb, "The arguments for tool %s do not match its input schema:\n", jsonw.Quote(tool))
	for _, e := range shown {
		sb.WriteString("- ")
		sb.WriteString(e.Message)
		sb.WriteByte('\n')
	}
	if len(errs) > len(shown) {
		fmt.Fprintf(&sb, "- … and %d more errors\n", len(errs)-len(shown))
	}
	sb.WriteString("Fix the arguments and call the tool again.")

	d := []byte{'['}
	for i, e := range shown {
		if i > 0 {
			d = append(d, ',')
		}
		d = append(d, `{"pointer":`...)
		d = jsonw.AppendString(d, e.Pointer)
		d = append(d, `,"keyword":`...)
		d = jsonw.AppendString(d, e.Keyword)
		d = append(d, `,"expected":`...)
		d = jsonw.AppendString(d, e.Expected)
		d = append(d, `,"got":`...)
		d = jsonw.AppendString(d, e.Got)
		d = append(d, `,"message":`...)
		d = jsonw.AppendString(d, e.Message)
		d = append(d, '}')
	}
	d = append(d, ']')
	return msg, sb.String(), d
}
