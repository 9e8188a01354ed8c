package ollamabench

import (
	"fmt"
	"strings"
)

// The inputs, built as parse/bench_test.go builds its own, cut into
// responses: one response is what one parser sees, as a server makes a
// parser per request. Each benchmark's responses add up to about 1 MiB.

const para = "The committee reviewed the quarterly figures and noted that revenue rose, while costs held steady across most regions.\n"

// denseHermes is Hermes/Qwen3 <tool_call> blocks as json.dumps writes
// them, one call per ~150 bytes with a word of prose between.
func denseHermes(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"celsius\", \"day\": %d, \"detail\": true}}\n</tool_call>\nNext.\n", i)
	}
	return b.String()
}

// denseQwenCoder is Qwen3-Coder's XML calls, back to back.
func denseQwenCoder(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=day>\n%d\n</parameter>\n</function>\n</tool_call>\n", i)
	}
	return b.String()
}

// proseWithCalls is prose with a Hermes call every `every` bytes.
func proseWithCalls(size, every int) string {
	var b strings.Builder
	n := 0
	for b.Len() < size {
		if b.Len() >= n*every {
			n++
			fmt.Fprintf(&b, "<tool_call>{\"name\":\"lookup\",\"arguments\":{\"id\":%d}}</tool_call>\n", n)
		}
		b.WriteString(para)
	}
	return b.String()
}

// harmonyTurn is one gpt-oss turn as the model writes it after the
// prompt's "<|start|>assistant": reasoning of about `reasoning` bytes in
// the analysis channel, then one call. It ends where the model's stop
// token <|call|> would be: Ollama's runner stops there and does not pass
// the token on, and toolcall reads a call cut off by the end the same.
func harmonyTurn(reasoning, day int) string {
	var b strings.Builder
	b.WriteString("<|channel|>analysis<|message|>")
	for b.Len() < reasoning {
		b.WriteString(para)
	}
	fmt.Fprintf(&b, "<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Paris\",\"day\":%d}", day)
	return b.String()
}

// repeat is n copies of one response.
func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// A case is one benchmark's input and the Ollama parser it goes to. The
// input is built when the case runs, so that a benchmark run for one case
// does not build the others'.
type benchCase struct {
	name      string
	ollama    string // a name for parsers.ParserForName, or "tools" for tools.Parser with the <tool_call> tag
	responses func() []string
}

func harmonyTurns(n int) []string {
	turns := make([]string, n)
	for day := range turns {
		turns[day] = harmonyTurn(1000, day)
	}
	return turns
}

func cases(small bool) []benchCase {
	if small {
		return []benchCase{
			{"Hermes", "qwen3", func() []string { return []string{denseHermes(2 << 10), denseHermes(300)} }},
			{"HermesTools", "tools", func() []string { return []string{denseHermes(2 << 10)} }},
			{"Qwen3Coder", "qwen3-coder", func() []string { return []string{denseQwenCoder(2 << 10)} }},
			{"Prose", "qwen3", func() []string { return []string{proseWithCalls(16<<10, 4<<10)} }},
			{"Harmony", "harmony", func() []string { return harmonyTurns(3) }},
		}
	}
	return []benchCase{
		{"Hermes", "qwen3", func() []string { return repeat(denseHermes(16<<10), 64) }},
		{"HermesTools", "tools", func() []string { return repeat(denseHermes(16<<10), 64) }},
		{"Qwen3Coder", "qwen3-coder", func() []string { return repeat(denseQwenCoder(16<<10), 64) }},
		{"Prose", "qwen3", func() []string { return []string{proseWithCalls(1<<20, 128<<10)} }},
		{"Harmony", "harmony", func() []string { return harmonyTurns(1024) }},
	}
}

// tokens cuts s into pieces of 1 to 7 bytes, 4 on average, as a server
// hands a parser a token or a few at a time; the lengths vary so that
// markers are cut at every place.
func tokens(s string) []string {
	lengths := [...]int{3, 5, 2, 6, 4, 4, 1, 7}
	var out []string
	for i, off := 0, 0; off < len(s); i++ {
		n := min(len(s)-off, lengths[i%len(lengths)])
		out = append(out, s[off:off+n])
		off += n
	}
	return out
}

// toolsJSON is the tools both sides are given: Ollama's parsers take
// them as api.Tool, toolcall as the ParamType and KnownTool lookups run
// gives it.
const toolsJSON = `[
{"type":"function","function":{"name":"get_weather","description":"Weather for a city on a day.","parameters":{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string"},"day":{"type":"integer"},"detail":{"type":"boolean"}},"required":["city"]}}},
{"type":"function","function":{"name":"lookup","description":"A record by id.","parameters":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}}}
]`
