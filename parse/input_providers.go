package parse

// The response shapes of the providers: OpenAI chat completions, Anthropic
// messages, OpenAI responses, and the error bodies each sends.

import (
	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/unsafestr"
)

// errorPayload makes the error for the value of an error event: OpenAI's
// {"error":{"message":...}}, llama.cpp's {"code":...,"message":...}, or
// anything else quoted whole.
func errorPayload(data []byte) error {
	root := gjson.ParseBytes(data)
	if e, ok := errorIn(root, true); ok {
		return e
	}
	if m := root.Get("message"); m.Type == gjson.String {
		return &ServerError{Message: m.Str, Code: errorCode(root)}
	}
	return &ServerError{Message: string(data)}
}

// errorIn finds an error payload in a response: {"error":{"message":...}}
// (OpenAI, vLLM, llama.cpp, Anthropic), {"error":"..."} alone (Ollama) or
// {"type":"error","message":...} (the Responses API). loose also takes an
// error object without a message.
func errorIn(root gjson.Result, loose bool) (*ServerError, bool) {
	var e, typ, msg gjson.Result
	n := 0
	root.ForEach(func(k, v gjson.Result) bool {
		n++
		switch k.Str {
		case "error":
			e = v
		case "type":
			typ = v
		case "message":
			msg = v
		}
		return true
	})
	return errorOf(root, e, typ, msg, n, loose)
}

// errorOf is errorIn on the fields already picked out of root, which has
// n keys.
func errorOf(root, e, typ, msg gjson.Result, n int, loose bool) (*ServerError, bool) {
	switch {
	case e.IsObject():
		if m := e.Get("message"); m.Type == gjson.String {
			return &ServerError{Message: m.Str, Code: errorCode(e)}, true
		}
		if loose {
			return &ServerError{Message: e.Raw}, true
		}
	case e.Type == gjson.String && e.Str != "":
		// Only as the whole object: a model's own JSON may well have an
		// "error" string among other fields.
		if n == 1 || loose {
			return &ServerError{Message: e.Str}, true
		}
	}
	if typ.Str == "error" && msg.Type == gjson.String {
		return &ServerError{Message: msg.Str, Code: errorCode(root)}, true
	}
	return nil, false
}

func errorCode(e gjson.Result) string {
	for _, k := range []string{"code", "type", "status"} {
		if v := e.Get(k); v.Exists() && v.Type != gjson.Null && v.String() != "" {
			return k + " " + v.String()
		}
	}
	return ""
}

// Responses.

// handle reads one JSON object. ok is false, and nothing is sent, if the
// object has no shape this knows.
func (u *unpacker) handle(b []byte) (ok bool, err error) {
	root := gjson.Parse(unsafestr.String(b))
	if !root.IsObject() {
		return false, nil
	}
	// One pass over the top-level keys rather than one lookup each: on a
	// stream of small chunks the passes are most of the cost.
	var choices, message, response, thinking, done, model, typ, content, object, output, stop, errV gjson.Result
	n := 0
	root.ForEach(func(k, v gjson.Result) bool {
		n++
		switch k.Str {
		case "error":
			errV = v
		case "choices":
			choices = v
		case "message":
			message = v
		case "response":
			response = v
		case "thinking":
			thinking = v
		case "done":
			done = v
		case "model":
			model = v
		case "type":
			typ = v
		case "content":
			content = v
		case "object":
			object = v
		case "output":
			output = v
		case "stop":
			stop = v
		}
		return true
	})
	if e, found := errorOf(root, errV, typ, message, n, false); found {
		return true, e
	}
	if u.reply != nil {
		// Looked up apart, so that toolcall parse, which has no use for
		// it, does not pay for it on every chunk.
		u.reply.note(model, root.Get("usage"))
	}
	switch {
	case choices.IsArray():
		return true, u.openAI(choices)
	case typ.Type == gjson.String && (typ.Str == "message" && content.IsArray() || anthropicEvents[typ.Str]):
		return true, u.anthropic(root, typ.Str, content)
	case typ.Type == gjson.String && len(typ.Str) > 9 && typ.Str[:9] == "response.":
		return true, u.responsesEvent(root, typ.Str)
	case object.Str == "response" && output.IsArray():
		return true, u.responsesOutput(output)
	case message.IsObject() && message.Get("role").Exists(),
		model.Exists() && done.Exists(),
		response.Exists() && done.Exists():
		// Ollama: /api/chat has a message, /api/generate a response.
		if message.IsObject() {
			if err := u.message(message); err != nil {
				return true, err
			}
		}
		if err := u.reasoning(thinking.String()); err != nil {
			return true, err
		}
		if err := u.text(response.String()); err != nil {
			return true, err
		}
		if done.Type == gjson.True {
			if u.reply != nil {
				u.reply.finish(root.Get("done_reason"))
				u.reply.Done = true
			}
			return true, u.flushCalls()
		}
		return true, nil
	case content.Type == gjson.String && (stop.Type == gjson.True || stop.Type == gjson.False):
		// llama.cpp's own /completion.
		return true, u.text(content.Str)
	}
	return false, nil
}

// openAI reads the choices of a chat/completions or completions response
// or chunk. Only choice 0 is read.
func (u *unpacker) openAI(choices gjson.Result) error {
	var delta, message, text, finish gjson.Result
	found := false
	choices.ForEach(func(_, c gjson.Result) bool {
		var index gjson.Result
		delta, message, text, finish = gjson.Result{}, gjson.Result{}, gjson.Result{}, gjson.Result{}
		c.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "index":
				index = v
			case "delta":
				delta = v
			case "message":
				message = v
			case "text":
				text = v
			case "finish_reason":
				finish = v
			}
			return true
		})
		found = c.IsObject() && (!index.Exists() || index.Int() == 0)
		return !found
	})
	if !found {
		return nil // a usage-only chunk, or another choice's
	}
	if delta.IsObject() {
		if err := u.delta(delta); err != nil {
			return err
		}
	}
	if message.IsObject() {
		if err := u.message(message); err != nil {
			return err
		}
	}
	if text.Type == gjson.String {
		if err := u.text(text.Str); err != nil {
			return err
		}
	}
	if finish.Exists() && finish.Type != gjson.Null {
		if u.reply != nil {
			// Before the calls go: a receiver that stops at one of
			// them then knows the model has finished.
			u.reply.finish(finish)
		}
		return u.flushCalls()
	}
	return nil
}

// messageFields are the fields of a message or delta that matter.
type messageFields struct {
	content, toolCalls, functionCall gjson.Result
	reasoning                        string
}

// fieldsOf picks out m's fields in one pass. Reasoning is
// reasoning_content for llama.cpp and DeepSeek, reasoning for newer vLLM
// and OpenRouter, thinking for Ollama; some vLLM versions send the first
// two with the same text, so only one counts, in that order.
func fieldsOf(m gjson.Result) messageFields {
	var f messageFields
	var rc, r, th string
	m.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "content":
			f.content = v
		case "tool_calls":
			f.toolCalls = v
		case "function_call":
			f.functionCall = v
		case "reasoning_content":
			rc = v.Str
		case "reasoning":
			r = v.Str
		case "thinking":
			th = v.Str
		}
		return true
	})
	switch {
	case rc != "":
		f.reasoning = rc
	case r != "":
		f.reasoning = r
	default:
		f.reasoning = th
	}
	return f
}

func (u *unpacker) delta(d gjson.Result) error {
	f := fieldsOf(d)
	if err := u.reasoning(f.reasoning); err != nil {
		return err
	}
	if f.content.Type == gjson.String {
		if err := u.text(f.content.Str); err != nil {
			return err
		}
	}
	var err error
	f.toolCalls.ForEach(func(_, tc gjson.Result) bool {
		err = u.toolDelta(tc)
		return err == nil
	})
	if err != nil {
		return err
	}
	if fc := f.functionCall; fc.IsObject() {
		// The legacy single call: one call, in pieces, with no index.
		return u.callDelta(gjson.Result{Type: gjson.Number, Num: 0, Raw: "0"}, "", fc.Get("name").String(), fc.Get("arguments").String())
	}
	return nil
}

// message reads a whole message: OpenAI's choices[0].message or Ollama's
// message (streamed or not). Reasoning, then content, then calls.
func (u *unpacker) message(m gjson.Result) error {
	f := fieldsOf(m)
	if err := u.reasoning(f.reasoning); err != nil {
		return err
	}
	c := f.content
	switch {
	case c.Type == gjson.String:
		if err := u.text(c.Str); err != nil {
			return err
		}
	case c.IsArray():
		// Content as parts: [{"type":"text","text":...}].
		var err error
		c.ForEach(func(_, part gjson.Result) bool {
			if t := part.Get("type").Str; t == "text" || t == "output_text" {
				err = u.text(part.Get("text").String())
			}
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	var err error
	f.toolCalls.ForEach(func(_, tc gjson.Result) bool {
		fn := tc.Get("function")
		err = u.nativeCall(tc.Get("id").String(), fn.Get("name").String(), fn.Get("arguments").Raw)
		return err == nil
	})
	if err != nil {
		return err
	}
	if fc := f.functionCall; fc.IsObject() {
		return u.nativeCall("", fc.Get("name").String(), fc.Get("arguments").Raw)
	}
	return nil
}

var anthropicEvents = map[string]bool{
	"message_start":       true,
	"content_block_start": true,
	"content_block_delta": true,
	"content_block_stop":  true,
	"message_delta":       true,
	"message_stop":        true,
	"ping":                true,
}

// anthropic reads an Anthropic messages response or stream event.
func (u *unpacker) anthropic(root gjson.Result, typ string, content gjson.Result) error {
	switch typ {
	case "message":
		return u.anthropicBlocks(content)
	case "message_start":
		return u.anthropicBlocks(root.Get("message.content"))
	case "content_block_start":
		idx := int(root.Get("index").Int())
		if err := u.flushBelow(idx); err != nil {
			return err
		}
		b := root.Get("content_block")
		switch b.Get("type").Str {
		case "text":
			return u.text(b.Get("text").String())
		case "thinking":
			return u.reasoning(b.Get("thinking").String())
		case "tool_use", "server_tool_use":
			p := u.openCall(idx, b.Get("id").String(), b.Get("name").String())
			if in := b.Get("input"); in.Exists() {
				p.whole = []byte(in.Raw)
			}
		}
	case "content_block_delta":
		idx := int(root.Get("index").Int())
		d := root.Get("delta")
		switch d.Get("type").Str {
		case "text_delta":
			return u.text(d.Get("text").String())
		case "thinking_delta":
			return u.reasoning(d.Get("thinking").String())
		case "input_json_delta":
			p := u.findCall(idx)
			if p == nil {
				p = u.openCall(idx, "", "")
			}
			return u.addArgs(p, d.Get("partial_json").String())
		}
	case "content_block_stop":
		return u.emitCall(int(root.Get("index").Int()))
	case "message_delta", "message_stop":
		if u.reply != nil {
			u.reply.finish(root.Get("delta.stop_reason"))
			u.reply.Done = u.reply.Done || typ == "message_stop"
		}
		return u.flushCalls()
	}
	return nil
}

func (u *unpacker) anthropicBlocks(content gjson.Result) error {
	var err error
	content.ForEach(func(_, b gjson.Result) bool {
		switch b.Get("type").Str {
		case "text":
			err = u.text(b.Get("text").String())
		case "thinking":
			err = u.reasoning(b.Get("thinking").String())
		case "tool_use", "server_tool_use":
			err = u.nativeCall(b.Get("id").String(), b.Get("name").String(), b.Get("input").Raw)
		}
		return err == nil
	})
	return err
}

// responsesOutput reads the output items of an OpenAI Responses API
// response.
func (u *unpacker) responsesOutput(output gjson.Result) error {
	var err error
	output.ForEach(func(_, item gjson.Result) bool {
		switch item.Get("type").Str {
		case "reasoning":
			// The full reasoning when the server gives it (vLLM,
			// llama.cpp, gpt-oss), else OpenAI's summary of it.
			parts := item.Get("content")
			if !parts.IsArray() || len(parts.Array()) == 0 {
				parts = item.Get("summary")
			}
			parts.ForEach(func(_, p gjson.Result) bool {
				err = u.reasoning(p.Get("text").String())
				return err == nil
			})
		case "message":
			item.Get("content").ForEach(func(_, p gjson.Result) bool {
				if p.Get("type").Str == "output_text" {
					err = u.text(p.Get("text").String())
				}
				return err == nil
			})
		case "function_call":
			err = u.nativeCall(item.Get("call_id").String(), item.Get("name").String(), item.Get("arguments").Raw)
		case "custom_tool_call":
			err = u.nativeCall(item.Get("call_id").String(), item.Get("name").String(), item.Get("input").Raw)
		}
		return err == nil
	})
	return err
}

// responsesEvent reads one Responses API stream event.
func (u *unpacker) responsesEvent(root gjson.Result, typ string) error {
	switch typ {
	case "response.output_text.delta":
		return u.text(root.Get("delta").String())
	case "response.reasoning_text.delta", "response.reasoning_summary_text.delta":
		return u.reasoning(root.Get("delta").String())
	case "response.output_item.added":
		item := root.Get("item")
		if item.Get("type").Str == "function_call" {
			idx := int(root.Get("output_index").Int())
			if err := u.flushBelow(idx); err != nil {
				return err
			}
			u.openCall(idx, item.Get("call_id").String(), item.Get("name").String())
		}
	case "response.function_call_arguments.delta":
		idx := int(root.Get("output_index").Int())
		p := u.findCall(idx)
		if p == nil {
			p = u.openCall(idx, "", "")
		}
		return u.addArgs(p, root.Get("delta").String())
	case "response.output_item.done":
		item := root.Get("item")
		if item.Get("type").Str != "function_call" {
			return nil
		}
		idx := int(root.Get("output_index").Int())
		p := u.findCall(idx)
		if p == nil {
			p = u.openCall(idx, item.Get("call_id").String(), item.Get("name").String())
		}
		if a := item.Get("arguments"); a.Exists() {
			// The whole arguments string is authoritative over the
			// pieces that preceded it.
			p.args, p.whole = nil, []byte(a.Raw)
		}
		return u.emitCall(idx)
	case "response.failed":
		if e, ok := errorIn(root.Get("response"), true); ok {
			return e
		}
		return &ServerError{Message: "response failed"}
	case "response.completed", "response.incomplete":
		if u.reply != nil {
			u.reply.finish(gjson.Result{Type: gjson.String, Str: typ[len("response."):]})
			u.reply.Done = true
		}
		return u.flushCalls()
	}
	return nil
}
