package run

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// Input is what run was asked.
type Input struct {
	Messages []Message // the conversation so far; the last is the user's
	// Earlier, when set, is the conversation Messages go on from (a
	// continued run, continue.go): the model sees it first, and the
	// transcript gets only the events of Messages and what follows.
	Earlier *Earlier
}

// Earlier is a conversation to go on from: its messages as the model saw
// them, system text first, and how many calls it made (the next call's
// id comes after theirs). Events, when set, are its transcript, written
// first and redacted as every event is.
type Earlier struct {
	Messages []Message
	Calls    int
	Events   [][]byte
}

// ParseInput reads run's stdin: {"prompt": …}, {"messages": […]}, or plain
// text taken as the prompt.
func ParseInput(data []byte) (Input, error) {
	text := strings.TrimSpace(string(data))
	if text == "" {
		return Input{}, errors.New("no prompt: give the request on stdin, as text or as {\"prompt\": \"…\"} or {\"messages\": […]}")
	}
	if !strings.HasPrefix(text, "{") || !gjson.Valid(text) {
		return Input{Messages: []Message{{Role: "user", Content: text}}}, nil
	}
	v := gjson.Parse(text)
	if p := v.Get("prompt"); p.Type == gjson.String {
		return Input{Messages: []Message{{Role: "user", Content: p.Str}}}, nil
	}
	msgs := v.Get("messages")
	if !msgs.IsArray() {
		return Input{}, errors.New(`the request on stdin has neither "prompt" (a string) nor "messages" (an array)`)
	}
	var in Input
	for i, m := range msgs.Array() {
		role, content := m.Get("role").Str, m.Get("content")
		text := content.Str
		if content.IsArray() { // [{"type":"text","text":…}]
			var parts []string
			for _, p := range content.Array() {
				if p.Get("type").Str == "text" {
					parts = append(parts, p.Get("text").Str)
				}
			}
			text = strings.Join(parts, "\n")
		}
		switch role {
		case "system", "user", "assistant":
		default:
			return Input{}, fmt.Errorf("message %d: role %q: want system, user or assistant", i+1, role)
		}
		in.Messages = append(in.Messages, Message{Role: role, Content: text})
	}
	if len(in.Messages) == 0 || in.Messages[len(in.Messages)-1].Role != "user" {
		return Input{}, errors.New(`"messages" must end with a user message`)
	}
	return in, nil
}
