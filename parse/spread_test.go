package parse

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// streamSpread runs Stream over in, with forks given blocks of at least
// block bytes over up to procs cores; block 0 turns forks off.
func streamSpread(t testing.TB, in []byte, opts Options, block, procs int) (string, Stats) {
	t.Helper()
	wasBlock, wasProcs := spreadBlock, spreadProcs
	defer func() { spreadBlock, spreadProcs = wasBlock, wasProcs }()
	spreadBlock, spreadProcs = 1<<62, func() int { return procs }
	if block > 0 {
		spreadBlock = block
	}
	var out bytes.Buffer
	stats, err := Stream(context.Background(), bytes.NewReader(in), &out, opts)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), stats
}

// checkSpread fails unless Stream writes the same events, and counts the
// same, with forks as without.
func checkSpread(t testing.TB, in []byte, opts Options, block, procs int) {
	t.Helper()
	want, wantStats := streamSpread(t, in, opts, 0, 1)
	got, gotStats := streamSpread(t, in, opts, block, procs)
	if got != want || gotStats != wantStats {
		t.Fatalf("forks over blocks of %d bytes change the events:\nwithout (%+v):\n%s\nwith (%+v):\n%s\ninput:\n%q", block, wantStats, want, gotStats, got, in)
	}
}

// spreadInputs are inputs made of many lines, from every format's
// fixtures: each fixture several times over, and all of them in a row.
func spreadInputs(t *testing.T) map[string][]byte {
	inputs := map[string][]byte{}
	var all []byte
	for _, pattern := range []string{"testdata/formats/*.txt", "testdata/known/*.txt"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			inputs[file] = bytes.Repeat(append(b, '\n'), 4)
			all = append(append(all, b...), '\n')
		}
	}
	inputs["all"] = all
	var jsonl, hermes, mixed bytes.Buffer
	for i := range 400 {
		fmt.Fprintf(&jsonl, `{"type":"tool_call","name":"get_weather","arguments":{"city":"Paris","day":%d}}`+"\n", i)
		fmt.Fprintf(&hermes, "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"day\": %d}}\n</tool_call>\nNext.\n", i)
		switch i % 9 {
		case 0:
			fmt.Fprintf(&mixed, `{"type":"tool_call","id":"call_%d","name":"f","arguments":{}}`+"\n", i)
		case 1:
			mixed.WriteString("</tool_call>\n")
		case 2:
			mixed.WriteString("<think>\nstill thinking\n")
		case 3:
			mixed.WriteString("</think>\n```json\n")
		case 4:
			mixed.WriteString("```\n[f(a=1)]\n")
		case 5:
			mixed.WriteString(`{"type":"tool_call","name":"f","arguments":{"s":"a"b"}}` + "\n")
		default:
			fmt.Fprintf(&mixed, "<tool_call>{\"name\":\"g\",\"arguments\":{\"n\":%d}}</tool_call>\n", i)
		}
	}
	var solarCalls, harmony bytes.Buffer
	for i := range 300 {
		fmt.Fprintf(&solarCalls, "Line %d.\n<|tool_calls|><|tool_call:begin|>c%d<|tool_call:name|>f<|tool_call:args|>{\"n\": %d}<|tool_call:end|><|calls|><|end|>\n", i, i, i)
		fmt.Fprintf(&harmony, "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"n\":%d}<|call|>\n", i)
	}
	inputs["solar"], inputs["harmony"] = solarCalls.Bytes(), harmony.Bytes()
	inputs["jsonl"], inputs["hermes"], inputs["mixed"] = jsonl.Bytes(), hermes.Bytes(), mixed.Bytes()
	return inputs
}

// TestSpreadSameEvents checks that parsing a piece of input on several
// cores writes exactly what parsing it on one does, over every format's
// fixtures, and that forks are kept where the input is dense.
func TestSpreadSameEvents(t *testing.T) {
	inputs := spreadInputs(t)
	kept := forksKept.Load()
	for _, in := range inputs {
		for _, opts := range []Options{{}, knownTools("f", "g", "get_weather"), {Format: FormatHermes},
			{Format: FormatTemplate, Syntax: solar}, {Format: FormatHarmony, Syntax: &Syntax{Prompt: "<|start|>assistant"}}} {
			for _, block := range []int{1, 7, 64, 1024} {
				checkSpread(t, in, opts, block, 4)
			}
		}
	}
	t.Logf("%d forks kept", forksKept.Load()-kept)
	for name, opts := range map[string]Options{"jsonl": {}, "hermes": {}, "solar": {Format: FormatTemplate, Syntax: solar}} {
		kept := forksKept.Load()
		_, stats := streamSpread(t, inputs[name], opts, 1024, 4)
		if forksKept.Load() == kept {
			t.Errorf("%s: no fork was kept (%d calls)", name, stats.Calls)
		}
	}
}

// TestSpreadNumbersOn checks the ids of calls parsed by forks: counted on
// across blocks and from Options.FirstID, as one Parser counts them.
func TestSpreadNumbersOn(t *testing.T) {
	in := strings.Repeat(`{"type":"tool_call","name":"f","arguments":{}}`+"\n", 300)
	out, _ := streamSpread(t, []byte(in), Options{FirstID: 7}, 512, 4)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 300 {
		t.Fatalf("%d events, want 300", len(lines))
	}
	for i, l := range lines {
		if want := fmt.Sprintf(`"id":"call_%d"`, 8+i); !strings.Contains(l, want) {
			t.Fatalf("event %d: %s, want %s", i, l, want)
		}
	}
}

// FuzzSpread checks the promise of TestSpreadSameEvents on any input, cut
// into blocks as small as a byte.
func FuzzSpread(f *testing.F) {
	addFileSeeds(f, "testdata/formats/*.txt")
	f.Add([]byte("x\n</tool_call>\n{\"type\":\"tool_call\",\"name\":\"f\",\"arguments\":{}}\n"), uint16(3))
	f.Fuzz(func(t *testing.T, in []byte, block uint16) {
		// Three times over, so that the Parser comes back to the states
		// forks start from.
		in = bytes.Join([][]byte{in, in, in}, []byte("\n"))
		checkSpread(t, in, Options{}, 1+int(block%64), 4)
		checkSpread(t, in, knownTools("f", "get_weather"), 1+int(block%64), 3)
		checkSpread(t, in, Options{Format: FormatTemplate, Syntax: solar}, 1+int(block%64), 2)
	})
}
