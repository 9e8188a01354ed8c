package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// resultAs given the tool message writes the call's name and id where
// the family's markers say; given only the text, such a family says what
// it lacks.
func TestResultAsMessage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kimi.tmpl")
	os.WriteFile(path, []byte(`{{range .Messages}}{{if eq .Role "tool"}}{{resultAs "kimi_k2" .}}{{end}}{{end}}`), 0o644)
	p, err := Template(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Render([]Message{{Role: "tool", Content: "14 °C", Name: "get_weather", ToolCallID: "functions.get_weather:0"}})
	if want := "<|im_system|>get_weather<|im_middle|>## Return of functions.get_weather:0\n14 °C<|im_end|>"; err != nil || got != want {
		t.Errorf("resultAs kimi_k2 .: %q, %v; want %q", got, err, want)
	}
	os.WriteFile(path, []byte(`{{range .Messages}}{{resultAs "kimi_k2" .Content}}{{end}}`), 0o644)
	if p, err = Template(path); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Render([]Message{{Role: "tool", Content: "14 °C"}}); err == nil || !strings.Contains(err.Error(), "tool's name") {
		t.Errorf("resultAs kimi_k2 .Content: %v, want an error that the tool's name is needed", err)
	}
}
