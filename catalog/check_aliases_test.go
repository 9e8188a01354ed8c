package catalog

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// aliasDir writes a tools directory of one tool whose sidecar has the
// aliases given.
func aliasDir(t *testing.T, aliases string) string {
	t.Helper()
	dir := t.TempDir()
	sidecar := `{"description": "Weather for a city.", "safe": true,
		"input_schema": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]}}},
		` + aliases + `}`
	if err := os.WriteFile(filepath.Join(dir, "weather.json"), []byte(sidecar), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "weather"), []byte("#!/bin/sh\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCheckAliases(t *testing.T) {
	good := aliasDir(t, `"aliases": {"loc": "city"}, "value_aliases": {"/unit": {"C": "celsius"}}`)
	if problems, _ := Check([]string{good}, LoadOptions{}); len(problems) > 0 {
		t.Errorf("good aliases: %v", problems)
	}
	bad := aliasDir(t, `"aliases": {"loc": "town"}, "value_aliases": {"/unit": {"K": "kelvin"}}`)
	problems, _ := Check([]string{bad}, LoadOptions{})
	var got []string
	for _, p := range problems {
		got = append(got, p.Tool+": "+p.Message)
	}
	want := []string{
		`weather: aliases: "loc" -> "town": "town" is not a property of the arguments in the input schema; point each alias at a property the schema defines`,
		`weather: value_aliases: "/unit": "K" -> "kelvin": "kelvin" is not one of the schema's values there; map each alias to a value of the enum`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRenderHidesAliases: the model is shown the schema's names only, in
// every rendering, so that it learns the names the tool wants.
func TestRenderHidesAliases(t *testing.T) {
	dir := aliasDir(t, `"aliases": {"loc": "city"}, "value_aliases": {"/unit": {"Celsius_alias": "celsius"}}, "max_calls": 3`)
	c, err := Load([]string{dir}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	picked, err := c.Select(context.Background(), Selection{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{FormatJSONL, FormatOpenAI, FormatAnthropic, FormatOllama, FormatMCP, FormatPrompt} {
		var b bytes.Buffer
		if err := Render(&b, c, picked, RenderOptions{Format: f}); err != nil {
			t.Fatal(err)
		}
		for _, leak := range []string{"aliases", `"loc"`, "Celsius_alias", "max_calls"} {
			if strings.Contains(b.String(), leak) {
				t.Errorf("--format %s shows %s:\n%s", f, leak, b.String())
			}
		}
	}
}
