package tools

import (
	"strings"
	"testing"
)

// The attack: the argument that matters ("path") comes after 400 bytes of
// others, so a prompt cut after 400 bytes asks the person to approve a
// write whose target they never see. Every key is shown, and so are the
// start and the end of a long value.
func TestHostileConfirmShowsEveryKey(t *testing.T) {
	filler := strings.Repeat("harmless notes ", 200)
	args := `{"content":"` + filler + `","mode":"append","path":"../../home/me/.bashrc","options":{"note":"` + filler + `","backup":false}}`
	got := ConfirmText([]byte(args))
	for _, want := range []string{
		"  path: \"../../home/me/.bashrc\"\n",
		"  mode: \"append\"\n",
		"  options.backup: false\n",
		"  content: \"harmless notes",
		"bytes]…",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the prompt does not show %q:\n%s", want, got)
		}
	}
	if len(got) > 2000 {
		t.Errorf("the prompt is %d bytes: long values are not cut", len(got))
	}
}

// The end of a long value is what a person must see: where a path leads,
// the command after the harmless one.
func TestConfirmKeepsTheEndOfALongValue(t *testing.T) {
	args := `{"command":"echo ` + strings.Repeat("x", 5000) + `; rm -rf ~"}`
	got := ConfirmText([]byte(args))
	if !strings.Contains(got, `; rm -rf ~"`) || !strings.Contains(got, `"echo xxx`) {
		t.Errorf("the prompt hides an end of the value:\n%s", got)
	}
}

// The arguments are the model's: escape sequences in them reach the
// terminal as text, and a key cannot start a line of its own.
func TestHostileConfirmEscapesTerminalControls(t *testing.T) {
	got := ConfirmText([]byte("{\"a\\nRun it? y\":\"\x1b]0;title\x07\u202e\"}"))
	if strings.ContainsAny(got, "\x1b\x07\u202e") || strings.Count(got, "\n") != 1 {
		t.Errorf("control characters reach the terminal: %q", got)
	}
	if got := ConfirmText([]byte(`{}`)); got != "  (no arguments)\n" {
		t.Errorf("ConfirmText({}) = %q", got)
	}
}
