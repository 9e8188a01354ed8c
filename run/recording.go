package run

import (
	"context"
	"fmt"
	"strings"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/tools/event"
)

// Recording is a recorded run to run again: what `run --replay FILE` and
// `run --replay DIR --check` are made of, so that the command line holds
// flags and the policy of a replay lives here, once.
type Recording struct {
	// Path is the file it was read from.
	Path string
	// Events are its lines, each one JSON object.
	Events [][]byte
	// Input is the request it answered (RecordedInput).
	Input Input
	// Native says the recorded run used the server's own tool calling
	// (RecordedNative): it is replayed that way.
	Native bool
	// Ignore is what a check leaves out besides VolatileFields.
	Ignore CheckIgnore
}

// OpenRecording reads the recording at path, a bounded line at a time,
// and finds the request in it. A file that cannot be opened is the
// *fs.PathError of os.Open; what is wrong with its content is an error
// that does not repeat the path (the caller names it, as a flag's value
// or a file of many).
func OpenRecording(path string) (*Recording, error) {
	events, err := readTranscriptFile(path)
	if err != nil {
		return nil, err
	}
	in, err := RecordedInput(events)
	if err != nil {
		return nil, err
	}
	return &Recording{Path: path, Events: events, Input: in, Native: RecordedNative(events)}, nil
}

// AcceptPrompt checks a prompt given with the recording: the recorded
// turns answer the recorded request only, and another prompt would be
// run against answers to a different question.
func (r *Recording) AcceptPrompt(prompt string) error {
	if len(r.Input.Messages) == 1 && r.Input.Messages[0].Content == prompt {
		return nil
	}
	var parts []string
	for _, m := range r.Input.Messages {
		parts = append(parts, m.Content)
	}
	return fmt.Errorf("the prompt %q is not the recorded one (%q); give the recorded prompt, or none to use it",
		clip.Runes(prompt, 60), clip.Runes(strings.Join(parts, " / "), 60))
}

// Setup fills in what of opts the recording decides: its backend, and
// how tools are offered and observations given back (native when the
// recording was, or when native is asked for all the same).
func (r *Recording) Setup(opts *Options, native bool) error {
	be, err := newReplay(r.Events)
	if err != nil {
		return err
	}
	opts.Backend = be
	opts.Native = native || r.Native
	opts.ObservationRole = RoleUser
	if opts.Native {
		opts.ObservationRole = RoleTool
	}
	return nil
}

// Replay runs the recording again with opts (after Setup) and hands the
// transcript's events to sink (LoopSink). With check, the transcript is
// also compared with the recording: diff says how they differ, "" when
// they do not (its ending included, so a recording of a run that failed
// passes when the replay fails the same way).
func (r *Recording) Replay(ctx context.Context, sink event.Sink, opts Options, check bool) (res Result, diff string, err error) {
	var got keptEvents
	if check {
		sink = event.Tee(sink, &got)
	}
	if res, err = r.run(ctx, sink, opts); err != nil || !check {
		return res, "", err
	}
	if d, same := CheckIgnoring(r.Events, got, r.Ignore); !same {
		diff = d
	}
	return res, diff, nil
}

// keptEvents is the sink the golden check keeps a replay's events in,
// each as its JSON: the run's own events, taken as values and encoded
// once, never read back from the lines of a transcript.
type keptEvents [][]byte

func (k *keptEvents) Emit(e event.Event) error {
	*k = append(*k, e.AppendJSON(nil))
	return nil
}

func (k *keptEvents) Flush() error { return nil }

// run runs the loop on the recorded request; a recording of a
// conversation that went on (--continue) goes on the same way, each later
// request from the conversation this run built.
func (r *Recording) run(ctx context.Context, sink event.Sink, opts Options) (Result, error) {
	res, err := LoopSink(ctx, r.Input, sink, opts)
	for _, next := range LaterRequests(r.Events) {
		if err != nil || ctx.Err() != nil {
			break
		}
		in := Input{Messages: next, Earlier: &Earlier{Messages: res.Conversation, Calls: res.Calls}}
		res, err = LoopSink(ctx, in, sink, opts)
	}
	return res, err
}
