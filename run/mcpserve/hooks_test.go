//go:build unix

package mcpserve

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolcall/toolcall/tools"
)

// TestCallRunsTheHooks: a tools/call goes through the before- and
// after-hooks and the retries exactly as exec's calls do: a rewrite is
// what the tool gets, a block is an isError answer with the hook's
// reason, an after-hook's text is what the client reads (the structured
// content it replaced goes with it), and a flaky safe tool is run again.
func TestCallRunsTheHooks(t *testing.T) {
	dir := toolsDir(t)
	work := t.TempDir()
	writeTool(t, dir, "flaky", `{"description":"Fails once.","input_schema":{"type":"object"},"retries":1}`,
		"[ -e state ] || { : > state; exit 1; }\necho steady\n")
	hooks := t.TempDir()
	writeTool(t, hooks, "guard", `{}`, `read -r call
case "$call" in
*secret*) echo "not for clients" >&2; exit 2;;
*lower*) echo '{"text": "LOWER"}';;
esac
`)
	writeTool(t, hooks, "tidy", `{}`, `read -r call; read -r obs
case "$obs" in *'n is 7'*) echo "seven, tidied";; esac
`)
	_, cs := serve(t, dir, Options{Exec: tools.ExecOptions{Workdir: work, RetryBackoff: time.Millisecond, Hooks: tools.Hooks{
		Before: []tools.Hook{{Argv: []string{filepath.Join(hooks, "guard")}}},
		After:  []tools.Hook{{Argv: []string{filepath.Join(hooks, "tidy")}}},
	}}}, nil)

	if r := call(t, cs, "echo", map[string]any{"text": "lower"}); r.IsError || text(r) != `{"text":"LOWER"}` {
		t.Errorf("rewritten: isError %v, %q", r.IsError, text(r))
	}
	if r := call(t, cs, "echo", map[string]any{"text": "a secret"}); !r.IsError || !strings.Contains(text(r), "blocked this call: not for clients") {
		t.Errorf("blocked: isError %v, %q", r.IsError, text(r))
	}
	r := call(t, cs, "rich", nil)
	if b, _ := json.Marshal(r.StructuredContent); r.IsError || text(r) != "seven, tidied" || len(r.Content) != 1 || string(b) != "null" {
		t.Errorf("after-hook: isError %v, %q, %d parts, structured %s", r.IsError, text(r), len(r.Content), b)
	}
	if r := call(t, cs, "flaky", nil); r.IsError || text(r) != "steady" {
		t.Errorf("flaky: isError %v, %q", r.IsError, text(r))
	}
	if _, err := os.Stat(filepath.Join(work, "state")); err != nil {
		t.Error("flaky never ran")
	}
}
