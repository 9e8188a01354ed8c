//go:build unix

package tools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// saveBig runs a tool that prints about 50 KB under --scratch and returns
// the ref of its saved output.
func saveBig(t *testing.T, set execSet, scratch string) string {
	t.Helper()
	out, _, err := runExec(t, context.Background(), set, callLine("1", "big", `{}`), ExecOptions{MaxOutput: 1024, Scratch: scratch})
	if err != nil {
		t.Fatal(err)
	}
	ref := gjson.Get(strings.Split(strings.TrimSpace(out), "\n")[1], "ref").Str
	if !strings.HasPrefix(ref, refPrefix) {
		t.Fatalf("no ref saved: %s", out)
	}
	return ref
}

// A ref is an argument like any other: the value it stands for is checked
// against the schema before anything runs, in validate and in exec.
func TestRefsAreValidated(t *testing.T) {
	dir, scratch := t.TempDir(), t.TempDir()
	ran := filepath.Join(t.TempDir(), "ran")
	set := execSet{
		"big":   shTool(t, dir, "big", `i=0; while [ $i -lt 2000 ]; do echo "line $i of the report"; i=$((i+1)); done`),
		"short": shTool(t, dir, "short", `cat > `+ran+`; echo ran`),
	}
	set["short"].InputSchema = []byte(`{"type":"object","properties":{"text":{"type":"string","maxLength":30}}}`)
	ref := saveBig(t, set, scratch)

	for name, args := range map[string]string{
		"object":           `{"text":"` + ref + `"}`,
		"string arguments": `"{\"text\":\"` + ref + `\"}"`,
		"escaped ref":      `{"text":"ref\u003a` + strings.TrimPrefix(ref, refPrefix) + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			out, st, err := runExec(t, context.Background(), set, callLine("2", "short", args), ExecOptions{Scratch: scratch})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(ran); err == nil {
				t.Fatalf("the tool ran with a value that breaks its schema:\n%.400s", out)
			}
			call, obs, _ := strings.Cut(out, "\n")
			if st.Failed != 1 || !strings.Contains(call, `"validated":false`) || gjson.Get(obs, "error.kind").Str != string(KindValidation) {
				t.Fatalf("want the call refused and one validation observation, got:\n%.600s", out)
			}
			if msg := gjson.Get(obs, "content").Str; !strings.Contains(msg, "maxLength") && !strings.Contains(msg, "30") || !strings.Contains(msg, ref) {
				t.Errorf("the observation does not say the value came from %s:\n%s", ref, msg)
			}

			var vout bytes.Buffer
			if _, err := Validate(context.Background(), strings.NewReader(callLine("2", "short", args)), &vout, set, ValidateOptions{Scratch: scratch}); err != nil {
				t.Fatal(err)
			}
			vcall, vobs, _ := strings.Cut(vout.String(), "\n")
			if !strings.Contains(vcall, `"validated":false`) || gjson.Get(vobs, "error.kind").Str != string(KindValidation) || !strings.Contains(vobs, ref) {
				t.Errorf("validate passed a ref whose value breaks the schema:\n%.600s", vout.String())
			}
		})
	}

	// A value that fits is passed whole; the call as written keeps the ref.
	small := saveOutput(t, scratch, "call_9", "short enough", nil)
	out, _, err := runExec(t, context.Background(), set, callLine("3", "short", `{"text":"`+small+`"}`), ExecOptions{Scratch: scratch})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(ran)
	if !strings.Contains(out, `"arguments":{"text":"`+small+`"}`) || !strings.Contains(out, `"validated":true`) || string(got) != `{"text":"short enough"}`+"\n" {
		t.Errorf("a fitting ref: tool read %q; events:\n%s", got, out)
	}

	// validate without --scratch cannot check what a ref stands for.
	var vout bytes.Buffer
	Validate(context.Background(), strings.NewReader(callLine("4", "short", `{"text":"`+small+`"}`)), &vout, set, ValidateOptions{})
	if !strings.Contains(vout.String(), "without --scratch") || strings.Contains(vout.String(), `"validated":true`) {
		t.Errorf("a ref without --scratch:\n%s", vout.String())
	}
}

// A ref names only an output toolcall saved: files planted in the scratch
// directory, links and hard links are unknown refs, whatever their names.
func TestRefsOnlyNameSavedOutputs(t *testing.T) {
	dir, scratch, outside := t.TempDir(), t.TempDir(), t.TempDir()
	set := execSet{"echo": shTool(t, dir, "echo", `cat`)}
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("the host's secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("the host's secret\n"))
	hash := hex.EncodeToString(sum[:])
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(scratch, "planted.txt"), []byte("planted"), 0o600))
	must(os.Symlink(secret, filepath.Join(scratch, "hostlink.txt")))
	must(os.WriteFile(filepath.Join(scratch, "call_1-00000000000000000000000000000000.txt"), []byte("planted"), 0o600))
	must(os.Symlink(secret, filepath.Join(scratch, "call_2-"+hash[:32]+".txt")))
	must(os.Link(secret, filepath.Join(scratch, "call_3-"+hash[:32]+".txt")))

	for _, id := range []string{"planted", "hostlink", "call_1-00000000000000000000000000000000", "call_2-" + hash[:32], "call_3-" + hash[:32]} {
		out, _, err := runExec(t, context.Background(), set, callLine("9", "echo", `{"text":"ref:`+id+`"}`), ExecOptions{Scratch: scratch})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "secret") || strings.Contains(out, `"content":"{`) || !strings.Contains(out, "names no saved output") {
			t.Errorf("ref:%s was passed on:\n%s", id, out)
		}
	}

	// What toolcall saved, in this run or an earlier one, is known.
	ref := saveOutput(t, scratch, "call_4", "saved text", nil)
	out, _, _ := runExec(t, context.Background(), set, callLine("9", "echo", `{"text":"`+ref+`"}`), ExecOptions{Scratch: scratch})
	if !strings.Contains(out, `"content":"{\"text\":\"saved text\"}`) {
		t.Errorf("a saved output was not passed:\n%s", out)
	}
}

// A symlink planted where a saved output will go is not written through.
func TestScratchDoesNotFollowPlantedLinks(t *testing.T) {
	scratch, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "target")
	if err := os.WriteFile(target, []byte("untouched"), 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("the output"))
	id := "call_1-" + hex.EncodeToString(sum[:])[:8]
	if err := os.Symlink(target, filepath.Join(scratch, id+".txt")); err != nil {
		t.Fatal(err)
	}
	f, err := os.CreateTemp(scratch, ".output-*")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("the output")
	f.Close()
	finishScratch(scratch, f.Name(), "call_1", nil, 0)
	if got, _ := os.ReadFile(target); string(got) != "untouched" {
		t.Errorf("the file a planted link points to was changed: %q", got)
	}
}

// Saved output is capped: past the cap the file is cut and says so.
func TestScratchIsCapped(t *testing.T) {
	dir, scratch := t.TempDir(), t.TempDir()
	set := execSet{"big": shTool(t, dir, "big", `i=0; while [ $i -lt 5000 ]; do echo "line $i of the report"; i=$((i+1)); done`)}
	out, _, err := runExec(t, context.Background(), set, callLine("1", "big", `{}`), ExecOptions{MaxOutput: 1024, Scratch: scratch, MaxScratch: 8 << 10})
	if err != nil {
		t.Fatal(err)
	}
	obs := strings.Split(strings.TrimSpace(out), "\n")[1]
	ref := gjson.Get(obs, "ref").Str
	if !strings.Contains(gjson.Get(obs, "content").Str, "the first 8192 bytes of the output are saved") {
		t.Errorf("the observation does not say the saved output was cut:\n%s", obs)
	}
	saved, err := os.ReadFile(filepath.Join(scratch, strings.TrimPrefix(ref, refPrefix)+".txt"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(saved) > 8<<10+200 || !strings.HasPrefix(string(saved), "line 0 of") || !strings.Contains(string(saved), "--max-scratch-bytes") {
		t.Errorf("saved %d bytes, ending %q", len(saved), saved[max(0, len(saved)-200):])
	}
}

// A tool whose executable changed after it was loaded does not run.
func TestExecRefusesChangedExecutable(t *testing.T) {
	dir := t.TempDir()
	set := execSet{"echo": shTool(t, dir, "echo", `echo first`)}
	set["echo"].RecordExecutable()
	shTool(t, dir, "echo", `echo replaced by another tool, longer`)
	out, st, err := runExec(t, context.Background(), set, callLine("1", "echo", `{}`), ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	obs := strings.Split(strings.TrimSpace(out), "\n")[1]
	if st.Failed != 1 || gjson.Get(obs, "error.kind").Str != string(KindPermission) || !strings.Contains(out, "changed since it was loaded") || strings.Contains(out, "replaced by") {
		t.Errorf("a changed executable ran:\n%s", out)
	}
}

// Tools are told where the tools in use live, so that file tools can
// refuse to touch them.
func TestExecPassesToolsDirs(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	set := execSet{
		"env": shTool(t, dir, "env", `printf '%s' "$TOOLCALL_TOOLS_DIRS"`),
		"x":   shTool(t, other, "x", `true`),
	}
	out, _, err := runExec(t, context.Background(), set, callLine("1", "env", `{}`), ExecOptions{Environ: []string{"TOOLCALL_TOOLS_DIRS=/nowhere"}})
	if err != nil {
		t.Fatal(err)
	}
	got := gjson.Get(strings.Split(strings.TrimSpace(out), "\n")[1], "content").Str
	dirs := filepath.SplitList(got)
	if len(dirs) != 2 || !contains(dirs, dir) || !contains(dirs, other) {
		t.Errorf("TOOLCALL_TOOLS_DIRS = %q, want %s and %s", got, dir, other)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Suggestions and lists of tools name only what the policy offers.
func TestUnknownToolNamesOnlyToolsOnOffer(t *testing.T) {
	dir := t.TempDir()
	set := execSet{
		"read_file":  shTool(t, dir, "read_file", `true`),
		"write_file": shTool(t, dir, "write_file", `true`),
		"wipe_disk":  shTool(t, dir, "wipe_disk", `true`),
	}
	set["write_file"].Safe = false
	var out bytes.Buffer
	in := callLine("1", "write_fil", `{}`) + callLine("2", "wipe_disc", `{}`)
	if _, err := Validate(context.Background(), strings.NewReader(in), &out, set, ValidateOptions{Policy: Policy{Deny: []string{"wipe_*"}}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), `write_file"`) || strings.Contains(out.String(), "wipe_disk") || !strings.Contains(out.String(), "Available tools: read_file.") {
		t.Errorf("tools not on offer were named:\n%s", out.String())
	}
	out.Reset()
	Validate(context.Background(), strings.NewReader(in), &out, set, ValidateOptions{Policy: Policy{AllowUnsafe: true}})
	if !strings.Contains(out.String(), `Did you mean \"write_file\"?`) {
		t.Errorf("with --allow-unsafe, write_file is on offer:\n%s", out.String())
	}
}

// A dry run shows the call as written and says what its refs stand for.
func TestDryRunSaysRefsAreResolved(t *testing.T) {
	dir, scratch := t.TempDir(), t.TempDir()
	set := execSet{"echo": shTool(t, dir, "echo", `cat`)}
	ref := saveOutput(t, scratch, "call_1", "twelve bytes", nil)
	out, _, err := runExec(t, context.Background(), set, callLine("2", "echo", `{"t":"`+ref+`"}`), ExecOptions{Scratch: scratch, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	content := gjson.Get(strings.Split(strings.TrimSpace(out), "\n")[1], "content").Str
	if !strings.Contains(content, `stdin: {"t":"`+ref+`"}`) || !strings.Contains(content, "each ref replaced by the saved text it names: 21 bytes") {
		t.Errorf("dry run:\n%s", content)
	}
}
