package parse

import (
	"errors"
	"io"
	"strings"

	"github.com/tidwall/gjson"
)

// Receiver takes the content of a model server's reply as DecodeReply
// finds it, in order. As with io.Writer, p is valid only during the call;
// args is the callee's to keep.
//
// stop = true asks DecodeReply to stop reading at once: the caller has
// what it needs, and closes the connection. Once the reply has a finish
// reason the model has finished, so DecodeReply reads on for the usage
// and metadata that may follow, but gives the receiver nothing more.
type Receiver interface {
	// Text is the next piece of the model's text.
	Text(p []byte) (stop bool, err error)
	// Reasoning is reasoning the server separated from the text.
	Reasoning(p []byte) error
	// NativeCall is a call the server parsed itself, whole: args is the
	// raw JSON value of its arguments, an object, or a JSON string
	// holding the encoded object (OpenAI's shape; streamed pieces are
	// joined into one), possibly empty.
	NativeCall(id, name string, args []byte) (stop bool, err error)
}

// Reply is what a reply said besides its content.
type Reply struct {
	Model        string // as the server named it; "" if it did not
	Usage        []byte // the server's usage object, raw JSON; nil if none
	FinishReason string // finish_reason (done_reason, stop_reason, …); "" if none came
	// Done is set when the reply marked its own end: [DONE], Ollama's
	// done, Anthropic's message_stop, the Responses API's completion.
	Done bool
	// Stopped is set when the receiver asked to stop.
	Stopped bool
}

// Complete reports whether the reply said it was over: a stream that
// ends without either mark was cut off.
func (r *Reply) Complete() bool { return r.Done || r.FinishReason != "" }

// note keeps the model and usage of a chunk. Copies are made only when
// they change: every chunk of a stream names the model.
func (r *Reply) note(model, usage gjson.Result) {
	if model.Type == gjson.String && model.Str != "" && model.Str != r.Model {
		r.Model = strings.Clone(model.Str)
	}
	if usage.IsObject() {
		r.Usage = []byte(usage.Raw)
	}
}

func (r *Reply) finish(reason gjson.Result) {
	if reason.Type == gjson.String && reason.Str != "" && reason.Str != r.FinishReason {
		r.FinishReason = strings.Clone(reason.Str)
	}
}

var (
	// errReplyDone ends DecodeReply at [DONE].
	errReplyDone = errors.New("the reply is done")
	// errStopReading ends DecodeReply when the receiver asks.
	errStopReading = errors.New("stopped by the receiver")
)

// DecodeReply reads a model server's reply from r, a response body, and
// gives its content to rcv as it arrives. It is the decoder toolcall
// parse uses, with the same shapes (see Stream): an OpenAI or Ollama
// response JSON, NDJSON, or an event stream, whose data events are the
// chunks; streamed native calls are assembled by index and id, and passed
// on whole. Unlike parse, input of no known shape is an error, not model
// text.
//
// It returns when the input ends, at [DONE], or when rcv asks to stop
// (Reply.Stopped). An error payload from the server is a *ServerError; a
// failure of r is returned wrapped. Whatever arrived before an error has
// been given to rcv.
func DecodeReply(r io.Reader, rcv Receiver) (Reply, error) {
	return DecodeReplyMax(r, rcv, 0)
}

// ErrArgumentsTooLarge is the error DecodeReply, DecodeReplyMax and
// Stream return, wrapped, when the streamed pieces of native calls'
// arguments pass their bound.
var ErrArgumentsTooLarge = errors.New("streamed tool-call arguments too large; raise the limit (run's --max-reply-bytes) or ask for shorter arguments")

// DecodeReplyMax is DecodeReply with the streamed arguments of the native
// calls still being put together held to max bytes in all (a turn's
// --max-reply-bytes); past it, it fails with ErrArgumentsTooLarge. max <= 0
// is parse's own bound, 64 MiB.
func DecodeReplyMax(r io.Reader, rcv Receiver, max int) (Reply, error) {
	var reply Reply
	out := &replyOutput{rcv: rcv, reply: &reply}
	u := newUnpacker(r, out)
	u.reply = &reply
	u.maxArgs = max
	err := u.unpack()
	switch {
	case err == errReplyDone:
		err = nil
	case err == errStopReading:
		err = nil
		reply.Stopped = true
	}
	return reply, err
}

// replyOutput hands unpack's output to a Receiver.
type replyOutput struct {
	rcv   Receiver
	reply *Reply
	// draining is set when the receiver stopped after the model had
	// finished: the rest is read for its metadata only.
	draining bool
}

// stopped is what a receiver's stop means: reading ends, or once the
// model has finished, delivery does.
func (o *replyOutput) stopped() error {
	o.reply.Stopped = true
	if o.reply.Complete() {
		o.draining = true
		return nil
	}
	return errStopReading
}

func (o *replyOutput) Write(p []byte) (int, error) {
	if o.draining {
		return len(p), nil
	}
	stop, err := o.rcv.Text(p)
	if err == nil && stop {
		err = o.stopped()
	}
	return len(p), err
}

func (o *replyOutput) WriteReasoning(p []byte) error {
	if o.draining {
		return nil
	}
	return o.rcv.Reasoning(p)
}

func (o *replyOutput) NativeCall(id, name string, args []byte) error {
	if o.draining {
		return nil
	}
	stop, err := o.rcv.NativeCall(id, name, args)
	if err == nil && stop {
		err = o.stopped()
	}
	return err
}
