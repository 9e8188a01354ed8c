package chattemplate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/internal/clip"
)

// A chat template is code from outside (with run --template auto, the
// model server chooses it): it must not read a file of this machine, by
// any of Jinja's ways to pull in another template, and the bytes of the
// file must reach neither the output nor the error.
func TestTemplatesReadNoFiles(t *testing.T) {
	const secret = "SECRET-c0ffee-not-for-templates"
	dir := t.TempDir()
	path := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(path, []byte(secret+"{% macro m() %}"+secret+"{% endmacro %}"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A relative name is looked up from the working directory.
	t.Chdir(dir)
	for _, src := range []string{
		`{% include "` + path + `" %}`,
		`{% include "id_ed25519" %}`,
		`{% include messages[0].content %}`,
		`{% include ["nothing", "` + path + `"] %}`,
		`{% import "` + path + `" as k %}{{ k.m() }}`,
		`{% from "` + path + `" import m %}{{ m() }}`,
		`{% extends "` + path + `" %}`,
		`{%- include "` + path + `" ignore missing -%}`,
		// Endless input: it must fail at once, not fill the memory.
		`{% include "/dev/zero" %}`,
		`{% include "/proc/self/environ" %}`,
		// The template itself, under the name the engine gives it.
		`{% include "chat_template" %}`,
	} {
		tp := &Template{Name: "hostile.jinja", Source: src}
		out, err := tp.Render([]Message{{Role: "user", Content: path}}, RenderOptions{})
		if err == nil {
			t.Errorf("%s: rendered %q, want an error", src, clip.Head(out, 200))
			continue
		}
		if !strings.Contains(err.Error(), "may not read other files") {
			t.Errorf("%s: error %q does not say that templates read no files", src, err)
		}
		if strings.Contains(out+err.Error(), secret) {
			t.Errorf("%s: the file's bytes came through: %q, %v", src, clip.Head(out, 200), err)
		}
	}
}
