package run

import (
	"fmt"

	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/tools"
)

// How a turn's observations go back to the model: in the style's words
// as the next user message, or as tool messages for native calls, each
// cut to --max-observation.

// giveBack adds the observations to the conversation, as the style and
// the backend expect them.
func (l *loop) giveBack(obs []observation) error {
	for i := range obs {
		obs[i].content = l.cutObservation(obs[i].content)
	}
	if l.opts.ObservationRole == RoleTool {
		for _, o := range obs {
			l.msgs = append(l.msgs, Message{Role: "tool", Content: o.content, ToolCallID: o.id, Name: o.name})
		}
		return nil
	}
	l.msgs = append(l.msgs, Message{Role: "user", Content: renderObservations(l.style, obs)})
	return nil
}

// cutObservation is what the model is given of an observation's
// content: at most MaxObservation bytes, and a note of how long it was.
func (l *loop) cutObservation(content string) string {
	if m := l.opts.MaxObservation; m > 0 && len(content) > m {
		return clip.Prefix(content, m) + fmt.Sprintf("\n[... cut: the result was %d bytes]", len(content))
	}
	return content
}

// answerNative gives each call of a native turn exactly one tool reply:
// its observation, or for a call parse could not read, why, written to
// the transcript as a decode observation too.
func (l *loop) answerNative(calls []turnCall, obs []observation) error {
	used := make([]bool, len(obs))
	var replies []observation
	for _, c := range calls {
		o := observation{id: c.ID, name: c.Name, isError: true, content: "the call was not run"}
		if c.decodeErr != "" {
			o.content = "Your native tool call could not be read: " + c.decodeErr + ". Make the call again, through the tool-calling API, with arguments that are one JSON object matching the tool's schema."
			ev := tools.Observation{ID: c.ID, Name: c.Name, Content: o.content, IsError: true, Status: tools.StatusError,
				Error: &tools.ToolError{Kind: tools.KindDecode, Message: o.content}}
			if err := l.writeEvent(&ev); err != nil {
				return err
			}
			l.ledger(&ev)
		} else {
			for i := range obs {
				if !used[i] && obs[i].id == c.ID {
					used[i], o = true, obs[i]
					break
				}
			}
		}
		replies = append(replies, o)
	}
	for i := range replies {
		content := l.cutObservation(replies[i].content)
		if replies[i].isError {
			content = "Error: " + content
		}
		l.msgs = append(l.msgs, Message{Role: "tool", Content: content, ToolCallID: replies[i].id, Name: replies[i].name})
	}
	return nil
}

// renderObservations writes results in the syntax the prompt promised.
func renderObservations(style *catalog.Style, obs []observation) string {
	var b []byte
	for i, o := range obs {
		if i > 0 {
			b = append(b, '\n')
		}
		b = style.AppendResult(b, o.id, o.name, o.content, o.isError)
	}
	return string(b)
}
