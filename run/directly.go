package run

import (
	"strings"

	"github.com/toolcall/toolcall/tools/event"
)

// answerPrompt asks for the answer a model said it would give without a
// tool (Command R's directly_answer) and did not give in the same turn.
const answerPrompt = "directly_answer is not a tool to call, and no other tool is needed: write your answer to the user now, as text, without an Action."

// askAnswer asks the model for the answer its directly_answer promised:
// a user message, written as a user event. When the model answered the
// last such request with directly_answer again, the run ends as a
// repeated call would.
func (l *loop) askAnswer(asked bool) (reason, final string, err error) {
	if asked {
		return StopRepeated, "", nil
	}
	l.askedAnswer = true
	ev := event.Message{Type: event.TypeUser, Content: answerPrompt}
	if err := l.writeEvent(&ev); err != nil {
		return "", "", err
	}
	l.msgs = append(l.msgs, Message{Role: "user", Content: answerPrompt})
	return "", "", nil
}

// groundedAnswer is the answer in the layout Command R's templates ask for
// after directly_answer ("Relevant Documents: …", "Cited Documents: …",
// "Answer: …", "Grounded answer: …", each starting a line): the text of
// its Answer, up to the Grounded answer, which repeats it with citation
// tags. Text without an Answer line is the answer as it is.
func groundedAnswer(text string) string {
	var b strings.Builder
	in := false
	for line := range strings.SplitAfterSeq(text, "\n") {
		if !in {
			if rest, ok := strings.CutPrefix(line, "Answer:"); ok {
				in = true
				b.WriteString(rest)
			}
			continue
		}
		if strings.HasPrefix(line, "Grounded answer:") {
			break
		}
		b.WriteString(line)
	}
	if answer := strings.TrimSpace(b.String()); answer != "" {
		return answer
	}
	return text
}
