package tools

import (
	"strconv"

	"github.com/toolcall/toolcall/internal/jsonw"
)

// Observation is what a call produced, as the model will see it: a
// tool_observation event (README.md, Events). validate writes one for a
// call it refuses; exec writes one for every call it runs.
type Observation struct {
	ID, Name string
	// Content is the text the model reads: the tool's output, or what was
	// wrong and how to fix it.
	Content string
	IsError bool
	// Status is the step's assessment: StatusOK, StatusPartial
	// (output cut to the limit), StatusError or StatusBlocked (refused by
	// policy, or a dry run). Empty: not written.
	Status string
	Error  *ToolError // nil unless IsError
	// Parts is the MCP content array of a result that had non-text parts
	// (images, resources), raw JSON; Content shows each as a placeholder.
	Parts []byte
	// Structured is an MCP result's structuredContent, raw JSON.
	Structured []byte
	// ExitCode and DurationMS are set when a tool ran; Signal names the
	// signal that ended it ("SIGKILL"), if one did.
	ExitCode   *int
	Signal     string
	DurationMS *int64
	// Truncated is true when output was cut to the output limit; Ref then
	// names where the whole output was saved.
	Truncated bool
	Ref       string
	// Attempts are the runs of a tool that was run again after it failed
	// (retry.go), the last one included; nil when it ran once.
	Attempts []Attempt
	// RewrittenBy names the after-call hooks that replaced the content
	// (hooks.go).
	RewrittenBy []string
}

// Observation statuses.
const (
	StatusOK      = "ok"
	StatusPartial = "partial"
	StatusError   = "error"
	StatusBlocked = "blocked"
)

// ToolError says what kind of failure an observation reports, for scripts
// and for the loop; Observation.Content carries the words for the model.
type ToolError struct {
	Kind    ErrorKind
	Message string
	// Details is raw JSON (an object or array), or nil.
	Details []byte
}

// AppendJSON appends o as a tool_observation event, without the trailing
// newline, keys always in the same order, so the same observation gives
// the same bytes. Optional fields are left out
// when zero; is_error is always written so a reader need not assume it.
func (o *Observation) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":"tool_observation","id":`...)
	dst = jsonw.AppendString(dst, o.ID)
	dst = append(dst, `,"name":`...)
	dst = jsonw.AppendString(dst, o.Name)
	dst = append(dst, `,"content":`...)
	dst = jsonw.AppendString(dst, o.Content)
	if o.IsError {
		dst = append(dst, `,"is_error":true`...)
	} else {
		dst = append(dst, `,"is_error":false`...)
	}
	if o.Status != "" {
		dst = append(dst, `,"status":`...)
		dst = jsonw.AppendString(dst, o.Status)
	}
	if e := o.Error; e != nil {
		dst = append(dst, `,"error":{"kind":`...)
		dst = jsonw.AppendString(dst, string(e.Kind))
		dst = append(dst, `,"message":`...)
		dst = jsonw.AppendString(dst, e.Message)
		if len(e.Details) > 0 {
			dst = append(dst, `,"details":`...)
			dst = append(dst, e.Details...)
		}
		dst = append(dst, '}')
	}
	if len(o.Parts) > 0 {
		dst = append(dst, `,"parts":`...)
		dst = append(dst, o.Parts...)
	}
	if len(o.Structured) > 0 {
		dst = append(dst, `,"structured_content":`...)
		dst = append(dst, o.Structured...)
	}
	if o.ExitCode != nil {
		dst = append(dst, `,"exit_code":`...)
		dst = strconv.AppendInt(dst, int64(*o.ExitCode), 10)
	}
	if o.Signal != "" {
		dst = append(dst, `,"signal":`...)
		dst = jsonw.AppendString(dst, o.Signal)
	}
	if o.DurationMS != nil {
		dst = append(dst, `,"duration_ms":`...)
		dst = strconv.AppendInt(dst, *o.DurationMS, 10)
	}
	if o.Truncated {
		dst = append(dst, `,"truncated":true`...)
	}
	if o.Ref != "" {
		dst = append(dst, `,"ref":`...)
		dst = jsonw.AppendString(dst, o.Ref)
	}
	if len(o.Attempts) > 0 {
		dst = appendAttempts(append(dst, `,"attempts":`...), o.Attempts)
	}
	if len(o.RewrittenBy) > 0 {
		dst = jsonw.AppendStrings(append(dst, `,"rewritten_by":`...), o.RewrittenBy)
	}
	return append(dst, '}')
}
