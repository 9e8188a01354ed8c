//go:build unix

package tools

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// hookTool is a tool that records each run in dir/ran and echoes its
// arguments, for the hook tests.
func hookTool(t *testing.T, dir string) execSet {
	t.Helper()
	echo := shTool(t, dir, "echo", "cat >> "+filepath.Join(dir, "ran")+"; cat "+filepath.Join(dir, "ran"))
	echo.InputSchema = []byte(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	return execSet{"echo": echo}
}

// hook writes an sh script as a hook.
func hook(t *testing.T, dir, name, script string) Hook {
	t.Helper()
	return Hook{Argv: []string{shTool(t, dir, name, script).Command}}
}

// lines splits out into its events.
func eventLines(out string) []string {
	return strings.Split(strings.TrimSpace(out), "\n")
}

// TestBeforeHook holds each answer of a before-hook to what it does: 0
// allows, 0 with an object rewrites (checked again, recorded), 2 blocks
// with stderr as the reason, anything else fails closed; and the tool
// runs only when allowed.
func TestBeforeHook(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		ran          bool   // the tool ran
		args         string // the arguments it got
		kind, status string // of the observation when refused
		says         []string
	}{
		{name: "allow", script: "cat >/dev/null", ran: true, args: `{"text":"hi"}`},
		{name: "same arguments", script: `cat >/dev/null; echo '{ "text" : "hi" }'`, ran: true, args: `{"text":"hi"}`},
		{name: "rewrite", script: `cat >/dev/null; echo '{"text":"HI"}'`, ran: true, args: `{"text":"HI"}`},
		{name: "block", script: "cat >/dev/null; echo 'not on Sundays' >&2; exit 2", kind: "permission", status: "blocked",
			says: []string{"A check of the user's blocked this call: not on Sundays.", `blocked the call: not on Sundays`}},
		{name: "block without reason", script: "exit 2", kind: "permission", status: "blocked", says: []string{"blocked the call\""}},
		{name: "fails", script: "echo boom >&2; exit 1", kind: "execution", status: "error",
			says: []string{"failed with exit status 1 (0 allows, 2 blocks)", "the call was not run", "hook stderr:\nboom"}},
		{name: "killed", script: "kill -9 $$", kind: "execution", status: "error", says: []string{"was killed by SIGKILL"}},
		{name: "too slow", script: "sleep 5", kind: "execution", status: "error", says: []string{"did not finish within 300ms"}},
		{name: "not an object", script: "echo '[1]'", kind: "execution", status: "error", says: []string{"something other than a JSON object"}},
		{name: "rewrite fails the schema", script: `echo '{"text":5}'`, kind: "execution", status: "error",
			says: []string{"rewrote the arguments into ones that do not pass", "/text: expected string"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			set := hookTool(t, dir)
			opts := ExecOptions{Hooks: Hooks{Before: []Hook{hook(t, dir, "guard", tc.script)}, Timeout: 300 * time.Millisecond}, Grace: 100 * time.Millisecond}
			out, st, err := runExec(t, context.Background(), set, callLine("c1", "echo", `{"text":"hi"}`), opts)
			if err != nil {
				t.Fatal(err)
			}
			ran, _ := os.ReadFile(filepath.Join(dir, "ran"))
			if got := strings.TrimSpace(string(ran)); tc.ran != (got != "") || got != tc.args {
				t.Fatalf("the tool got %q, want %q (ran: %v)\n%s", got, tc.args, tc.ran, out)
			}
			ev := eventLines(out)
			if tc.ran {
				call := gjson.Parse(ev[0])
				if call.Get("arguments").Raw != tc.args || call.Get("rewritten_by").Exists() != (tc.name == "rewrite") {
					t.Errorf("call %s", ev[0])
				}
				if tc.name == "rewrite" && call.Get("rewritten_by.0").Str != opts.Hooks.Before[0].Name() {
					t.Errorf("rewritten_by %s", call.Get("rewritten_by").Raw)
				}
				return
			}
			if len(ev) != 1 || st.Failed != 1 {
				t.Fatalf("want the observation alone, failed 1 (got %d):\n%s", st.Failed, out)
			}
			o := gjson.Parse(ev[0])
			if o.Get("error.kind").Str != tc.kind || o.Get("status").Str != tc.status || !o.Get("is_error").Bool() || o.Get("error.details.hook").Str == "" {
				t.Errorf("observation %s", ev[0])
			}
			for _, s := range tc.says {
				if !strings.Contains(ev[0], s) && !strings.Contains(o.Get("content").Str, s) {
					t.Errorf("observation does not say %q:\n%s", s, ev[0])
				}
			}
		})
	}
}

// TestBeforeHookChain runs hooks in order, each on what the last one
// left; all that rewrote are named; a person is asked last, about the
// arguments that will run; and the first that blocks ends the chain.
func TestBeforeHookChain(t *testing.T) {
	dir := t.TempDir()
	set := hookTool(t, dir)
	set["echo"].Safe = false
	seen := filepath.Join(dir, "seen")
	first := hook(t, dir, "first", `cat >> `+seen+`; echo '{"text":"one"}'`)
	second := hook(t, dir, "second", `cat >> `+seen+`; echo '{"text":"two"}'`)
	var asked string
	confirm := func(_ *Tool, c *Call) Consent { asked = string(c.Arguments); return ConsentYes }
	out, _, err := runExec(t, context.Background(), set, callLine("c1", "echo", `{"text":"hi"}`),
		ExecOptions{Hooks: Hooks{Before: []Hook{first, second}}, Confirm: confirm})
	if err != nil {
		t.Fatal(err)
	}
	call := gjson.Parse(eventLines(out)[0])
	if got := call.Get("rewritten_by").Raw; got != `["`+first.Name()+`","`+second.Name()+`"]` {
		t.Errorf("rewritten_by %s", got)
	}
	if asked != `{"text":"two"}` {
		t.Errorf("the person was asked about %s, want the arguments as the hooks left them", asked)
	}
	b, _ := os.ReadFile(seen)
	got := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(got) != 2 || gjson.Get(got[0], "arguments.text").Str != "hi" || gjson.Get(got[1], "arguments.text").Str != "one" ||
		gjson.Get(got[1], "rewritten_by.0").Str != first.Name() || !gjson.Get(got[0], "validated").Bool() {
		t.Errorf("the hooks saw:\n%s", b)
	}

	// A blocking hook ends the chain: the next one never runs, nobody is
	// asked.
	asked = ""
	block := hook(t, dir, "block", "exit 2")
	out, _, err = runExec(t, context.Background(), set, callLine("c2", "echo", `{"text":"hi"}`),
		ExecOptions{Hooks: Hooks{Before: []Hook{block, second}}, Confirm: confirm})
	if err != nil {
		t.Fatal(err)
	}
	if b2, _ := os.ReadFile(seen); !bytes.Equal(b, b2) || asked != "" || !strings.Contains(out, `"kind":"permission"`) {
		t.Errorf("after a block: asked %q, second ran: %v\n%s", asked, !bytes.Equal(b, b2), out)
	}
}

// TestAfterHook holds each answer of an after-hook to what it does to
// the observation.
func TestAfterHook(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		content      string // the observation's content
		isError      bool
		rewritten    bool
		message      string // error.message
	}{
		{name: "keep", script: "cat >/dev/null", content: `{"text":"hi"}`},
		{name: "replace", script: "cat >/dev/null; echo 'short'", content: "short", rewritten: true},
		{name: "error", script: "cat >/dev/null; echo 'looks wrong' >&2; exit 2", content: "looks wrong.\noutput:\n{\"text\":\"hi\"}", isError: true, message: "looks wrong"},
		{name: "error and replace", script: "echo 'looks wrong' >&2; echo gone; exit 2", content: "looks wrong.\noutput:\ngone", isError: true, rewritten: true, message: "looks wrong"},
		{name: "fails", script: "exit 7", isError: true, message: "failed with exit status 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			set := hookTool(t, dir)
			h := hook(t, dir, "after", tc.script)
			out, _, err := runExec(t, context.Background(), set, callLine("c1", "echo", `{"text":"hi"}`), ExecOptions{Hooks: Hooks{After: []Hook{h}}})
			if err != nil {
				t.Fatal(err)
			}
			ev := eventLines(out)
			if len(ev) != 2 {
				t.Fatalf("want the call and its observation:\n%s", out)
			}
			o := gjson.Parse(ev[1])
			content := o.Get("content").Str
			if tc.name == "fails" {
				if strings.Contains(content, `"text"`) || !strings.Contains(content, "its output is withheld") {
					t.Errorf("a failed after-hook let the output through: %s", ev[1])
				}
			} else if content != tc.content {
				t.Errorf("content %q, want %q", content, tc.content)
			}
			if o.Get("is_error").Bool() != tc.isError || o.Get("rewritten_by").Exists() != tc.rewritten || !strings.Contains(o.Get("error.message").Str, tc.message) {
				t.Errorf("observation %s", ev[1])
			}
			if o.Get("exit_code").Int() != 0 || !o.Get("exit_code").Exists() {
				t.Errorf("the run's exit code is lost: %s", ev[1])
			}
		})
	}
}

// TestAfterHookInput gives an after-hook the validated call and its
// observation, and runs the hooks in order, each on what the last left.
func TestAfterHookInput(t *testing.T) {
	dir := t.TempDir()
	set := hookTool(t, dir)
	seen := filepath.Join(dir, "seen")
	first := hook(t, dir, "first", "cat >> "+seen+"; echo one")
	second := hook(t, dir, "second", "cat >> "+seen+"; echo two")
	out, _, err := runExec(t, context.Background(), set, callLine("c1", "echo", `{"text":"hi"}`), ExecOptions{Hooks: Hooks{After: []Hook{first, second}}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(seen)
	got := eventLines(string(b))
	if len(got) != 4 || gjson.Get(got[0], "type").Str != TypeToolCall || !gjson.Get(got[0], "validated").Bool() ||
		gjson.Get(got[1], "content").Str != `{"text":"hi"}` || gjson.Get(got[3], "content").Str != "one" {
		t.Errorf("the hooks saw:\n%s", b)
	}
	if o := eventLines(out)[1]; gjson.Get(o, "content").Str != "two" || gjson.Get(o, "rewritten_by.#").Int() != 2 {
		t.Errorf("observation %s", o)
	}
}

// TestHooksSeeNoSecrets: a hook's environment holds no secret, not one
// --env passes to the tools by name, nor a variable whose value holds
// one; what it reads is redacted; what it writes is redacted before it is
// used, in arguments and in content.
func TestHooksSeeNoSecrets(t *testing.T) {
	const secret = "tok-0123456789abcdefXYZ"
	dir := t.TempDir()
	set := hookTool(t, dir)
	seen := filepath.Join(dir, "seen")
	before := hook(t, dir, "before", `{ env; cat; } >> `+seen+`; echo '{"text":"key `+secret+`"}'`)
	after := hook(t, dir, "after", `{ env; cat; } >> `+seen+`; echo "key `+secret+`"`)
	opts := ExecOptions{
		Hooks:   Hooks{Before: []Hook{before}, After: []Hook{after}},
		Environ: []string{"PATH=" + os.Getenv("PATH"), "API_TOKEN=" + secret, "LEAK=key " + secret, "PLAIN=yes"},
		Env:     []string{"API_TOKEN", "LEAK", "PLAIN"},
	}
	out, _, err := runExec(t, context.Background(), set, callLine("c1", "echo", `{"text":"`+secret+`"}`), opts)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(seen)
	if strings.Contains(string(b), "API_TOKEN") || strings.Contains(string(b), "LEAK") || !strings.Contains(string(b), "PLAIN=yes") ||
		!strings.Contains(string(b), "TOOLCALL_HOOK=before") || !strings.Contains(string(b), "TOOLCALL_HOOK=after") ||
		!strings.Contains(string(b), "TOOLCALL_TOOL=echo") || !strings.Contains(string(b), "TOOLCALL_CALL_ID=c1") {
		t.Errorf("the hooks' environment:\n%s", b)
	}
	if strings.Contains(string(b), secret) {
		t.Errorf("a hook saw the secret:\n%s", b)
	}
	if strings.Contains(out, secret) || !strings.Contains(out, `"text":"key [REDACTED]"`) || !strings.Contains(out, `"content":"key [REDACTED]"`) {
		t.Errorf("what a hook wrote reached the output unredacted:\n%s", out)
	}
	ran, _ := os.ReadFile(filepath.Join(dir, "ran"))
	if strings.Contains(string(ran), secret) {
		t.Errorf("the tool got the secret a hook wrote: %s", ran)
	}
}

// TestHooksDryRun: a dry run runs no hook, and says which would run.
func TestHooksDryRun(t *testing.T) {
	dir := t.TempDir()
	set := hookTool(t, dir)
	marker := filepath.Join(dir, "hooked")
	h := hook(t, dir, "h", "touch "+marker)
	out, _, err := runExec(t, context.Background(), set, callLine("c1", "echo", `{"text":"hi"}`), ExecOptions{DryRun: true, Hooks: Hooks{Before: []Hook{h}, After: []Hook{h}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a dry run ran a hook")
	}
	if !strings.Contains(out, `(The before-call hooks would run: \"`+h.Name()+`\".) (The after-call hooks would run:`) {
		t.Errorf("dry run: %s", out)
	}
}

// TestHooksRunIsExec: Executor.Run and Caller decide with hooks as Exec
// does.
func TestHooksRunIsExec(t *testing.T) {
	dir := t.TempDir()
	set := hookTool(t, dir)
	set["echo"].Command = shTool(t, dir, "cat", "cat").Command // the same answer each time
	guard := hook(t, dir, "guard", `read -r l; case "$l" in *block*) echo no >&2; exit 2;; *up*) echo '{"text":"UP"}';; esac`)
	after := hook(t, dir, "after", `read -r call; read -r obs; case "$obs" in *UP*) echo shouted;; esac`)
	opts := ExecOptions{Environ: []string{"PATH=" + os.Getenv("PATH")}, Hooks: Hooks{Before: []Hook{guard}, After: []Hook{after}}}
	calls := []Call{
		{ID: "c1", Name: "echo", Arguments: []byte(`{"text":"hi"}`)},
		{ID: "c2", Name: "echo", Arguments: []byte(`{"text":"block"}`)},
		{ID: "c3", Name: "echo", Arguments: []byte(`{"text":"up"}`)},
	}
	var lines strings.Builder
	for i := range calls {
		lines.Write(append(calls[i].AppendJSON(nil), '\n'))
	}
	want, _, err := runExec(t, context.Background(), set, lines.String(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	if _, err := NewExecutor(set, opts).Run(context.Background(), calls, func(o Outcome) error { got = o.AppendJSON(got); return nil }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(volatileMS(want), volatileMS(string(got))); diff != "" {
		t.Errorf("Run and Exec differ (-Exec +Run):\n%s", diff)
	}
	if !strings.Contains(want, `"rewritten_by"`) || !strings.Contains(want, `"content":"shouted"`) || !strings.Contains(want, `"kind":"permission"`) {
		t.Errorf("the hooks did not act:\n%s", want)
	}
	// The observations Exec wrote are what a Caller answers.
	cl := NewCaller(set, opts)
	obs := []string{}
	for _, l := range eventLines(want) {
		if gjson.Get(l, "type").Str == TypeToolObservation {
			obs = append(obs, l)
		}
	}
	for i, c := range calls {
		o := cl.Call(context.Background(), c.ID, c.Name, c.Arguments)
		if diff := cmp.Diff(volatileMS(obs[i]), volatileMS(string(o.AppendJSON(nil)))); diff != "" {
			t.Errorf("call %s: Caller and Exec differ (-Exec +Caller):\n%s", c.ID, diff)
		}
	}
}

// TestHookInterrupted: a hook stopped by ctx leaves the call unrun.
func TestHookInterrupted(t *testing.T) {
	dir := t.TempDir()
	set := hookTool(t, dir)
	h := hook(t, dir, "slow", "sleep 10")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	out, _, _ := runExec(t, ctx, set, callLine("c1", "echo", `{"text":"hi"}`), ExecOptions{Hooks: Hooks{Before: []Hook{h}}, Grace: 100 * time.Millisecond})
	if !strings.Contains(out, `"kind":"interrupted"`) {
		t.Errorf("output %s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the tool ran")
	}
}

// BenchmarkExecCallBeforeHook is BenchmarkExecCall with a before-hook
// that allows every call: the difference is what a hook costs, which
// should be about one process start (BenchmarkBareExec).
func BenchmarkExecCallBeforeHook(b *testing.B) {
	tool := &Tool{Name: "ok", Command: writeTestTool(b, "ok", "echo ok\n"), Safe: true,
		InputSchema: []byte(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}
	set := execSet{"ok": tool}
	in := callLine("call_1", "ok", `{"city":"Paris"}`)
	opts := ExecOptions{Environ: []string{"PATH=/usr/bin:/bin", "HOME=/tmp", "API_KEY=abcdefabcdef"},
		Hooks: Hooks{Before: []Hook{{Argv: []string{writeTestTool(b, "allow", "exit 0\n")}}}}}
	for b.Loop() {
		var out bytes.Buffer
		if _, err := Exec(context.Background(), strings.NewReader(in), &out, set, opts); err != nil || !strings.Contains(out.String(), `"content":"ok","is_error":false,"status":"ok"`) {
			b.Fatalf("%v: %s", err, out.String())
		}
	}
}
