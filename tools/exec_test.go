//go:build unix

package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// execSet is a ToolSet of sh tools written into a temporary directory.
type execSet map[string]*Tool

func (s execSet) Lookup(name string) (*Tool, bool) { t, ok := s[name]; return t, ok }
func (s execSet) Names() []string {
	var names []string
	for n := range s {
		names = append(names, n)
	}
	return names
}

// shTool writes an sh script as an executable tool with a permissive
// object schema.
func shTool(t testing.TB, dir, name, script string) *Tool {
	t.Helper()
	path := filepath.Join(dir, name)
	// Held so that no fork inherits the file open for writing, which
	// would make running it fail with "text file busy".
	syscall.ForkLock.RLock()
	err := os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o755)
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
	return &Tool{Name: name, Command: path, Safe: true, InputSchema: []byte(`{"type":"object"}`)}
}

func runExec(t testing.TB, ctx context.Context, set ToolSet, in string, opts ExecOptions) (string, ExecStats, error) {
	t.Helper()
	var out bytes.Buffer
	if opts.Environ == nil {
		opts.Environ = []string{"PATH=" + os.Getenv("PATH")}
	}
	st, err := Exec(ctx, strings.NewReader(in), &out, set, opts)
	for i, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if line != "" && !gjson.Valid(line) {
			t.Errorf("output line %d is not JSON: %q", i+1, line)
		}
	}
	return out.String(), st, err
}

func callLine(id, name, args string) string {
	return fmt.Sprintf(`{"type":"tool_call","id":%q,"name":%q,"arguments":%s}`+"\n", id, name, args)
}

// TestExecOrder runs 1,000 calls eight at a time, each sleeping a little
// at random: every call must get its own observation, in input order, with
// the text between calls kept in place.
func TestExecOrder(t *testing.T) {
	dir := t.TempDir()
	set := execSet{"echo": shTool(t, dir, "echo", `read line; case $TOOLCALL_CALL_ID in *3) sleep 0.01;; esac; printf '%s %s' "$TOOLCALL_CALL_ID" "$line"`)}
	n := 1000
	if testing.Short() {
		n = 100
	}
	var in strings.Builder
	for i := range n {
		in.WriteString(callLine(fmt.Sprintf("c%d", i), "echo", fmt.Sprintf(`{"i":%d}`, i)))
		if i%10 == 0 {
			fmt.Fprintf(&in, `{"type":"text","content":"after %d"}`+"\n", i)
		}
	}
	out, st, err := runExec(t, context.Background(), set, in.String(), ExecOptions{Parallel: 8})
	if err != nil {
		t.Fatal(err)
	}
	if st.Calls != n || st.Failed != 0 {
		t.Fatalf("stats %+v", st)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	k := 0
	for i := range n {
		id := fmt.Sprintf("c%d", i)
		if got := gjson.Get(lines[k], "type").Str + " " + gjson.Get(lines[k], "id").Str; got != "tool_call "+id {
			t.Fatalf("line %d: %s, want the call %s", k+1, lines[k], id)
		}
		obs := lines[k+1]
		want := fmt.Sprintf(`%s {"i":%d}`, id, i)
		if gjson.Get(obs, "id").Str != id || gjson.Get(obs, "content").Str != want || gjson.Get(obs, "status").Str != StatusOK {
			t.Fatalf("line %d: %s, want the observation of %s with %q", k+2, obs, id, want)
		}
		k += 2
		if i%10 == 0 {
			if want := fmt.Sprintf(`{"type":"text","content":"after %d"}`, i); lines[k] != want {
				t.Fatalf("line %d: %s, want %s", k+1, lines[k], want)
			}
			k++
		}
	}
	if k != len(lines) {
		t.Errorf("%d lines left over", len(lines)-k)
	}
}

// TestExecRefusals checks that a call that fails validation or the policy
// is answered as validate answers it and never runs.
func TestExecRefusals(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	touch := shTool(t, dir, "touch", "echo x >> "+marker)
	strict := shTool(t, dir, "strict", "echo x >> "+marker)
	strict.InputSchema = []byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	unsafe := shTool(t, dir, "unsafe", "echo x >> "+marker)
	unsafe.Safe = false
	set := execSet{"touch": touch, "strict": strict, "unsafe": unsafe}
	in := callLine("1", "nope", `{}`) + callLine("2", "strict", `{"n":"x"}`) + callLine("3", "unsafe", `{}`) + callLine("4", "touch", `{}`)
	out, st, err := runExec(t, context.Background(), set, in, ExecOptions{Policy: Policy{Deny: []string{"touch"}}})
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if e, _ := DecodeCallEvent([]byte(line)); e.Refused() { // the call as written, before its refusal
			continue
		}
		kinds = append(kinds, gjson.Get(line, "error.kind").Str)
	}
	if got := strings.Join(kinds, " "); got != "unknown_tool validation permission permission" {
		t.Errorf("kinds %q\n%s", got, out)
	}
	if st.Failed != 4 {
		t.Errorf("stats %+v", st)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a refused call ran")
	}
}

// TestExecConsent checks who is asked, and that "all" is remembered.
func TestExecConsent(t *testing.T) {
	dir := t.TempDir()
	unsafe := shTool(t, dir, "unsafe", "echo ran")
	unsafe.Safe = false
	other := shTool(t, dir, "other", "echo ran")
	other.Safe = false
	set := execSet{"unsafe": unsafe, "other": other}
	var asked []string
	answers := map[string]Consent{"1": ConsentNo, "2": ConsentAll, "4": ConsentYes, "5": ConsentNo}
	confirm := func(t *Tool, c *Call) Consent {
		asked = append(asked, c.ID)
		return answers[c.ID]
	}
	in := callLine("1", "unsafe", `{}`) + callLine("2", "unsafe", `{}`) + callLine("3", "unsafe", `{}`) +
		callLine("4", "other", `{}`) + callLine("5", "other", `{}`)
	out, _, err := runExec(t, context.Background(), set, in, ExecOptions{Confirm: confirm})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(asked, ","); got != "1,2,4,5" {
		t.Errorf("asked about %s, want 1,2,4,5 (3 is covered by all)", got)
	}
	var ran []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if gjson.Get(line, "type").Str == TypeToolObservation && gjson.Get(line, "content").Str == "ran" {
			ran = append(ran, gjson.Get(line, "id").Str)
		}
	}
	if got := strings.Join(ran, ","); got != "2,3,4" {
		t.Errorf("ran %s, want 2,3,4\n%s", got, out)
	}
}

// TestExecDryRun runs nothing and shows what would run, secrets redacted.
func TestExecDryRun(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	set := execSet{"touch": shTool(t, dir, "touch", "echo x >> "+marker)}
	set["touch"].Env = []string{"API_TOKEN"}
	out, _, err := runExec(t, context.Background(), set, callLine("1", "touch", `{"a":1}`), ExecOptions{
		DryRun:  true,
		Environ: []string{"PATH=/usr/bin:/bin", "API_TOKEN=tok-0123456789abcdef", "HOME=/home/x", "OTHER=no"},
	})
	if err != nil {
		t.Fatal(err)
	}
	obs := strings.Split(strings.TrimSpace(out), "\n")[1]
	content := gjson.Get(obs, "content").Str
	for _, want := range []string{"Dry run", "executable: " + set["touch"].Command, "PATH=/usr/bin:/bin", "TOOLCALL_CALL_ID=1", "TOOLCALL_TOOL=touch", "API_TOKEN=[REDACTED]", `stdin: {"a":1}`} {
		if !strings.Contains(content, want) {
			t.Errorf("dry run does not show %q:\n%s", want, content)
		}
	}
	if strings.Contains(content, "OTHER") || strings.Contains(content, "0123456789abcdef") {
		t.Errorf("dry run shows what it should not:\n%s", content)
	}
	if gjson.Get(obs, "status").Str != StatusBlocked || gjson.Get(obs, "is_error").Bool() {
		t.Errorf("dry run observation %s", obs)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a dry run ran the tool")
	}
}

// TestExecRefs saves a cut output under --scratch and gives it back,
// whole, to a later call that passes its ref.
func TestExecRefs(t *testing.T) {
	dir, scratch := t.TempDir(), t.TempDir()
	set := execSet{
		"big":   shTool(t, dir, "big", `i=0; while [ $i -lt 2000 ]; do echo "line $i of the report"; i=$((i+1)); done`),
		"count": shTool(t, dir, "count", `wc -c | tr -d ' '`),
	}
	out, _, err := runExec(t, context.Background(), set, callLine("1", "big", `{}`), ExecOptions{MaxOutput: 1024, Scratch: scratch})
	if err != nil {
		t.Fatal(err)
	}
	obs := strings.Split(strings.TrimSpace(out), "\n")[1]
	ref := gjson.Get(obs, "ref").Str
	if !gjson.Get(obs, "truncated").Bool() || gjson.Get(obs, "status").Str != StatusPartial || !strings.HasPrefix(ref, "ref:") {
		t.Fatalf("big output: %s", obs)
	}
	if c := gjson.Get(obs, "content").Str; !strings.Contains(c, "line 0 of") || !strings.Contains(c, "line 1999 of") || len(c) > 1500 {
		t.Errorf("content is not the head and tail: %d bytes\n%s", len(c), c)
	}
	out, _, err = runExec(t, context.Background(), set, callLine("2", "count", `{"text":"`+ref+`"}`), ExecOptions{Scratch: scratch})
	if err != nil {
		t.Fatal(err)
	}
	obs = strings.Split(strings.TrimSpace(out), "\n")[1]
	// The whole report, as a JSON string in the arguments line.
	whole := 0
	for i := range 2000 {
		whole += len(fmt.Sprintf("line %d of the report\n", i))
	}
	if n := gjson.Get(obs, "content").Int(); n < int64(whole) {
		t.Errorf("the tool read %d bytes, want the whole saved output (%d bytes and more): %s", n, whole, obs)
	}
	out, _, _ = runExec(t, context.Background(), set, callLine("3", "count", `{"text":"ref:nothing-here"}`), ExecOptions{Scratch: scratch})
	if !strings.Contains(out, `"is_error":true`) || !strings.Contains(out, "ref:nothing-here") {
		t.Errorf("an unknown ref: %s", out)
	}
}

// TestExecRedacts keeps secrets out of what a tool's output shows.
func TestExecRedacts(t *testing.T) {
	dir := t.TempDir()
	set := execSet{"leak": shTool(t, dir, "leak", `echo "key=$MY_API_KEY"; echo "gh: ghp_abcdefghijklmnopqrstuvwxyz0123456789"; echo "fine text"; env`)}
	set["leak"].Env = []string{"MY_API_KEY"}
	out, _, err := runExec(t, context.Background(), set, callLine("1", "leak", `{}`), ExecOptions{
		Environ: []string{"PATH=" + os.Getenv("PATH"), "MY_API_KEY=s3cr3t-value-42", "DB_PASSWORD=hunter2hunter2"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"s3cr3t-value-42", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "hunter2hunter2"} {
		if strings.Contains(out, secret) {
			t.Errorf("secret %q in the output:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "fine text") || !strings.Contains(out, "[REDACTED]") {
		t.Errorf("output:\n%s", out)
	}
}

// TestExecFailures checks the observations of a tool that fails, one that
// runs too long, and one that cannot start.
func TestExecFailures(t *testing.T) {
	dir := t.TempDir()
	set := execSet{
		"fails": shTool(t, dir, "fails", `echo "partial result"; echo "disk on fire" >&2; exit 3`),
		"hangs": shTool(t, dir, "hangs", `sleep 30`),
		"gone":  shTool(t, dir, "gone", `echo hi`),
	}
	set["hangs"].Timeout = 300 * time.Millisecond
	os.Remove(set["gone"].Command)
	in := callLine("1", "fails", `{}`) + callLine("2", "hangs", `{}`) + callLine("3", "gone", `{}`)
	start := time.Now()
	out, st, err := runExec(t, context.Background(), set, in, ExecOptions{Grace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("took %v", time.Since(start))
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []struct{ kind, text string }{{"execution", "disk on fire"}, {"timeout", "did not finish within 300ms"}, {"execution", "could not be started"}}
	for i, w := range want {
		obs := lines[2*i+1]
		if gjson.Get(obs, "error.kind").Str != w.kind || !strings.Contains(gjson.Get(obs, "content").Str, w.text) || gjson.Get(obs, "status").Str != StatusError {
			t.Errorf("call %d: %s\nwant kind %s mentioning %q", i+1, obs, w.kind, w.text)
		}
	}
	if gjson.Get(lines[1], "exit_code").Int() != 3 || !strings.Contains(gjson.Get(lines[1], "content").Str, "partial result") {
		t.Errorf("failed tool: %s", lines[1])
	}
	if st.Failed != 3 {
		t.Errorf("stats %+v", st)
	}
}

// TestExecInterrupted cancels a run: the running tool is killed and
// answered with kind interrupted, and Exec returns promptly.
func TestExecInterrupted(t *testing.T) {
	dir := t.TempDir()
	set := execSet{"hangs": shTool(t, dir, "hangs", `echo started; sleep 30`)}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	out, _, err := runExec(t, ctx, set, callLine("1", "hangs", `{}`)+callLine("2", "hangs", `{}`), ExecOptions{Parallel: 1, Grace: 100 * time.Millisecond})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("took %v to stop", time.Since(start))
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("want both calls answered:\n%s", out)
	}
	for _, obs := range []string{lines[1], lines[3]} {
		if gjson.Get(obs, "error.kind").Str != string(KindInterrupted) {
			t.Errorf("observation %s, want kind interrupted", obs)
		}
	}
}

// BenchmarkExecCall is one call through Exec, checks and observation
// included; compare it with BenchmarkBareExec of the same tool for the
// overhead per call.
func BenchmarkExecCall(b *testing.B) {
	tool := &Tool{Name: "ok", Command: writeTestTool(b, "ok", "echo ok\n"), Safe: true,
		InputSchema: []byte(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}
	set := execSet{"ok": tool}
	in := callLine("call_1", "ok", `{"city":"Paris"}`)
	opts := ExecOptions{Environ: []string{"PATH=/usr/bin:/bin", "HOME=/tmp", "API_KEY=abcdefabcdef"}}
	for b.Loop() {
		var out bytes.Buffer
		if _, err := Exec(context.Background(), strings.NewReader(in), &out, set, opts); err != nil || !strings.Contains(out.String(), `"content":"ok","is_error":false,"status":"ok"`) {
			b.Fatalf("%v: %s", err, out.String())
		}
	}
}

// TestExecNoSchemaModes checks what each no-schema mode lets run.
func TestExecNoSchemaModes(t *testing.T) {
	dir := t.TempDir()
	mk := func(name, mode string, safe bool) *Tool {
		tl := shTool(t, dir, name, "echo ran")
		tl.InputSchema, tl.AllowNoSchema, tl.NoSchemaMode, tl.Safe = nil, true, mode, safe
		return tl
	}
	set := execSet{
		"ro":     mk("ro", NoSchemaReadOnly, true),
		"ro_bad": mk("ro_bad", NoSchemaReadOnly, false),
		"human":  mk("human", NoSchemaHumanApproval, true),
		"full":   mk("full", NoSchemaFull, true),
	}
	in := callLine("1", "ro", `{}`) + callLine("2", "ro_bad", `{}`) + callLine("3", "human", `{}`) + callLine("4", "full", `{}`)
	for _, tc := range []struct {
		name string
		opts ExecOptions
		ran  string
	}{
		{"no consent", ExecOptions{Policy: Policy{AllowUnsafe: true}}, "1,4"},
		{"approved", ExecOptions{Policy: Policy{AllowUnsafe: true, Approved: []string{"*"}}}, "1,3,4"},
		{"asked", ExecOptions{Confirm: func(*Tool, *Call) Consent { return ConsentYes }}, "1,3,4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := runExec(t, context.Background(), set, in, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var ran []string
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if gjson.Get(line, "content").Str == "ran" {
					ran = append(ran, gjson.Get(line, "id").Str)
				}
				if gjson.Get(line, "type").Str == TypeToolCall && gjson.Get(line, "validated").Bool() {
					t.Errorf("a no-schema call claims validated: %s", line)
				}
			}
			if got := strings.Join(ran, ","); got != tc.ran {
				t.Errorf("ran %s, want %s\n%s", got, tc.ran, out)
			}
		})
	}
}

// A call id the model wrote with a NUL, or too long to be an id, is the
// model's error, which it can correct: kind validation, and the tool does
// not run.
func TestExecBadCallIDIsTheModelsError(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	set := execSet{"touch": shTool(t, dir, "touch", "echo > "+marker)}
	in := `{"type":"tool_call","id":"call\u00001","name":"touch","arguments":{}}` + "\n" +
		callLine(strings.Repeat("x", MaxCallID+1), "touch", `{}`) +
		callLine(strings.Repeat("y", MaxCallID), "touch", `{}`)
	out, st, err := runExec(t, context.Background(), set, in, ExecOptions{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 6 || st.Failed != 2 {
		t.Fatalf("stats %+v, output:\n%s", st, out)
	}
	for i, want := range []string{"holds a NUL character", "is 257 bytes long, more than the 256 an id may have"} {
		o := gjson.Parse(lines[2*i+1]) // after the call, as the model wrote it
		if o.Get("error.kind").Str != string(KindValidation) || !strings.Contains(o.Get("content").Str, want) ||
			strings.Contains(o.Get("content").Str, "installation") {
			t.Errorf("observation %s, want kind validation saying %q", lines[2*i+1], want)
		}
	}
	if gjson.Get(lines[1], "id").Str != "call\x001" || gjson.Get(lines[0], "id").Str != "call\x001" {
		t.Errorf("the observation does not answer the call by its id: %s\n%s", lines[0], lines[1])
	}
	if gjson.Get(lines[5], "is_error").Bool() {
		t.Errorf("an id of %d bytes was refused: %s", MaxCallID, lines[5])
	}
}
