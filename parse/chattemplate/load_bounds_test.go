package chattemplate

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO where a template is looked for fails the load at once: read, it
// would wait for a writer that never comes.
func TestLoadRefusesFIFOs(t *testing.T) {
	fifo := func(dir, name string) string {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		return p
	}
	// The template itself.
	if _, err := Load(fifo(t.TempDir(), "chat_template.jinja")); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a FIFO as the template: %v", err)
	}
	// The chat_template.jinja beside a tokenizer_config.json without one.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(`{"eos_token": "</s>"}`), 0o644)
	fifo(dir, "chat_template.jinja")
	for _, p := range []string{filepath.Join(dir, "tokenizer_config.json"), dir} {
		if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s with a FIFO beside it: %v", p, err)
		}
	}
	// The tokenizer_config.json beside a chat_template.jinja is only
	// read for its special tokens: a FIFO there leaves them out.
	dir = t.TempDir()
	os.WriteFile(filepath.Join(dir, "chat_template.jinja"), []byte(tinyTemplate), 0o644)
	fifo(dir, "tokenizer_config.json")
	if tp, err := Load(filepath.Join(dir, "chat_template.jinja")); err != nil || tp.Source != tinyTemplate || tp.EOS != "" {
		t.Errorf("chat_template.jinja with a FIFO beside it: %+v, %v", tp, err)
	}
}

// The chat_template.jinja a tokenizer_config.json sends to is read within
// the bound of any template file, not whole.
func TestLoadBoundsTheFileBeside(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(`{"eos_token": "</s>"}`), 0o644)
	big, err := os.Create(filepath.Join(dir, "chat_template.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: the size is there, the disk blocks are not.
	if err := big.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	big.Close()
	if _, err := Load(filepath.Join(dir, "tokenizer_config.json")); err == nil || !strings.Contains(err.Error(), "larger than 4 MiB") {
		t.Errorf("a 1 GiB chat_template.jinja: %v", err)
	}
}

// ggufNested is a GGUF header of one metadata key holding arrays nested
// depth deep, then the chat template.
func ggufNested(depth int) []byte {
	w := newGGUF(2)
	le, str := w.le, w.str
	str("general.nested")
	le(uint32(ggufArray))
	for range depth {
		le(uint32(ggufArray))
		le(uint64(1))
	}
	le(uint32(ggufUint8))
	le(uint64(0))
	str("tokenizer.chat_template")
	le(uint32(ggufString))
	str(tinyTemplate)
	return w.Bytes()
}

// Arrays of arrays nest a level or two in real files; a header of
// nested array headers alone (60 MB of them overflowed the stack) is a
// damaged file.
func TestLoadGGUFNestingBounded(t *testing.T) {
	if tp, err := Load(writeFile(t, "ok.gguf", ggufNested(2))); err != nil || tp.Source != tinyTemplate {
		t.Errorf("arrays two deep: %+v, %v", tp, err)
	}
	_, err := Load(writeFile(t, "deep.gguf", ggufNested(200000)))
	if err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Errorf("arrays 200000 deep: %v", err)
	}
}
