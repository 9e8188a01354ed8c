//go:build unix

package run

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// nativeScripted is a Backend for native tool calling: each turn is text,
// calls the server parsed itself, or a failure after them.
type nativeScripted struct {
	turns []nativeTurn
}

type nativeTurn struct {
	text  string
	calls [][3]string // id, name, arguments as the server sent them
	err   error
}

func (s *nativeScripted) Complete(ctx context.Context, req *Request, sink Sink) (Response, error) {
	if len(s.turns) == 0 {
		return Response{}, &ProviderError{Message: "no more replies", Attempts: 1}
	}
	t := s.turns[0]
	s.turns = s.turns[1:]
	if t.text != "" {
		if _, err := sink.Text([]byte(t.text)); err != nil {
			return Response{}, err
		}
	}
	for _, c := range t.calls {
		if _, err := sink.NativeCall(c[0], c[1], []byte(c[2])); err != nil {
			return Response{}, err
		}
	}
	if t.err != nil {
		return Response{Model: "m"}, t.err
	}
	return Response{Model: "m", Usage: []byte(`{"total_tokens":3}`)}, nil
}

// recordAndReplay runs the loop with b, then again with a replay of what
// it wrote, as run --replay FILE --check does, and returns both
// transcripts and the check's verdict.
func recordAndReplay(t *testing.T, b Backend, opts Options) (rec, again string, diff string, ok bool) {
	t.Helper()
	opts.Catalog = loopCatalog(t)
	rec, _ = runLoop(t, b, opts, "Weather in Paris?")
	events, err := ReadTranscript(strings.NewReader(rec))
	if err != nil {
		t.Fatal(err)
	}
	replay, err := NewReplay(strings.NewReader(rec))
	if err != nil {
		t.Fatal(err)
	}
	in, err := RecordedInput(events)
	if err != nil {
		t.Fatal(err)
	}
	opts.Backend = replay
	opts.Native = RecordedNative(events)
	var out bytes.Buffer
	if _, err := Loop(context.Background(), in, &out, opts); err != nil {
		t.Fatal(err)
	}
	again = out.String()
	mine, err := ReadTranscript(&out)
	if err != nil {
		t.Fatal(err)
	}
	diff, ok = Check(events, mine)
	return rec, again, diff, ok
}

// TestReplayNative: a recording of a run with the server's own tool
// calling replays natively, and checks clean, with the arguments given
// back exactly as the server sent them.
func TestReplayNative(t *testing.T) {
	t.Run("calls", func(t *testing.T) {
		b := &nativeScripted{turns: []nativeTurn{
			{calls: [][3]string{{"fc_1", "get_weather", "{ \"city\" :  \"Paris\" }"}}},
			{text: "It is 18 C and raining in Paris."},
		}}
		rec, again, diff, ok := recordAndReplay(t, b, Options{Native: true, ObservationRole: RoleTool})
		if !ok {
			t.Fatalf("the replay differs from the recording:\n%s\nrecorded:\n%s\nreplayed:\n%s", diff, rec, again)
		}
		asst := strings.Split(again, "\n")[2]
		if got := gjson.Get(asst, "tool_calls.0.arguments").Str; got != "{ \"city\" :  \"Paris\" }" {
			t.Errorf("replayed arguments %q, want the server's string byte for byte", got)
		}
	})
	t.Run("no call", func(t *testing.T) {
		// Nothing in the turns says native: the system event does.
		b := &nativeScripted{turns: []nativeTurn{{text: "Paris is in France."}}}
		rec, again, diff, ok := recordAndReplay(t, b, Options{Native: true, ObservationRole: RoleTool})
		if !ok {
			t.Fatalf("the replay differs from the recording:\n%s\nrecorded:\n%s\nreplayed:\n%s", diff, rec, again)
		}
		if gjson.Get(strings.Split(rec, "\n")[0], "api").Str != APINative {
			t.Errorf("the system event does not say the run was native: %s", strings.Split(rec, "\n")[0])
		}
	})
	t.Run("not native", func(t *testing.T) {
		b := &scripted{replies: []string{`{"type":"final_answer","content":"Paris."}`}}
		rec, _, diff, ok := recordAndReplay(t, b, Options{})
		if !ok {
			t.Fatalf("the replay differs:\n%s", diff)
		}
		if strings.Contains(strings.Split(rec, "\n")[0], `"api"`) {
			t.Errorf("a run with the tools in the prompt says api: %s", strings.Split(rec, "\n")[0])
		}
	})
}

// TestReplayProviderError: a recording that ended in provider_error
// replays that error, word for word, in the same turn, whether the server
// failed before a reply, after a whole turn, or part way through one.
func TestReplayProviderError(t *testing.T) {
	fail := &ProviderError{Status: 503, Message: "loading model", Attempts: 3}
	call := `{"type":"tool_call","name":"get_weather","arguments":{"city":"Paris"}}` + "\n"
	native := Options{Native: true, ObservationRole: RoleTool}
	for name, c := range map[string]struct {
		b    Backend
		opts Options
	}{
		"first turn":          {&scripted{err: fail}, Options{}},
		"after a call":        {&scripted{replies: []string{call}, err: fail}, Options{}},
		"part way":            {&nativeScripted{turns: []nativeTurn{{text: "Let me", err: fail}}}, Options{}},
		"native, first turn":  {&nativeScripted{turns: []nativeTurn{{err: fail}}}, native},
		"native, after calls": {&nativeScripted{turns: []nativeTurn{{calls: [][3]string{{"fc_1", "get_weather", `{"city":"Paris"}`}}}, {err: fail}}}, native},
		"native, part way":    {&nativeScripted{turns: []nativeTurn{{calls: [][3]string{{"fc_1", "get_weather", `{"city":"Paris"}`}}, err: fail}}}, native},
	} {
		t.Run(name, func(t *testing.T) {
			rec, again, diff, ok := recordAndReplay(t, c.b, c.opts)
			if !strings.Contains(rec, `"reason":"provider_error"`) || !strings.Contains(rec, `"error":"model server: HTTP 503: loading model (after 3 attempts)"`) {
				t.Fatalf("the recording does not end in the provider error:\n%s", rec)
			}
			if !ok {
				t.Fatalf("the replay differs from the recording:\n%s\nrecorded:\n%s\nreplayed:\n%s", diff, rec, again)
			}
		})
	}
}
