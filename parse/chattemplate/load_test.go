package chattemplate

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const tinyTemplate = `{% for m in messages %}<|{{ m.role }}|>{{ m.content }}<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}`

func TestLoadTokenizerConfig(t *testing.T) {
	cases := map[string]string{
		"string": `{"chat_template": "` + strings.ReplaceAll(tinyTemplate, `"`, `\"`) + `", "eos_token": "<|end|>", "bos_token": {"content": "<s>"}}`,
		"named":  `{"chat_template": [{"name": "default", "template": "x"}, {"name": "tool_use", "template": "` + strings.ReplaceAll(tinyTemplate, `"`, `\"`) + `"}], "eos_token": "<|end|>", "bos_token": "<s>"}`,
	}
	for name, cfg := range cases {
		tp, err := Load(writeFile(t, "tokenizer_config.json", []byte(cfg)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if tp.Source != tinyTemplate || tp.EOS != "<|end|>" || tp.BOS != "<s>" {
			t.Errorf("%s: got %+v", name, tp)
		}
	}
	_, err := Load(writeFile(t, "tokenizer_config.json", []byte(`{"eos_token": "</s>"}`)))
	if err == nil || !strings.Contains(err.Error(), "no chat_template") {
		t.Errorf("config without a template: %v", err)
	}
}

// Newer models keep the template in chat_template.jinja, beside a
// tokenizer_config.json that has the special tokens.
func TestLoadModelDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(`{"eos_token": "<|end|>", "bos_token": "<s>"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "chat_template.jinja"), []byte(tinyTemplate), 0o644)
	for _, p := range []string{dir, filepath.Join(dir, "tokenizer_config.json"), filepath.Join(dir, "chat_template.jinja")} {
		tp, err := Load(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if tp.Source != tinyTemplate || tp.EOS != "<|end|>" || tp.BOS != "<s>" {
			t.Errorf("%s: got %+v", p, tp)
		}
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "directory without") {
		t.Errorf("empty directory: %v", err)
	}
}

// ggufFile writes a GGUF file's header for tests.
type ggufFile struct{ bytes.Buffer }

// newGGUF starts a version 3 header with no tensors and keys metadata keys.
func newGGUF(keys uint64) *ggufFile {
	w := &ggufFile{}
	w.WriteString("GGUF")
	w.le(uint32(3))
	w.le(uint64(0))
	w.le(keys)
	return w
}

func (w *ggufFile) le(v any)     { _ = binary.Write(w, binary.LittleEndian, v) }
func (w *ggufFile) str(s string) { w.le(uint64(len(s))); w.WriteString(s) }

func TestLoadGGUF(t *testing.T) {
	w := newGGUF(5)
	le, str := w.le, w.str
	str("general.architecture")
	le(uint32(ggufString))
	str("llama")
	str("tokenizer.ggml.tokens")
	le(uint32(ggufArray))
	le(uint32(ggufString))
	le(uint64(3))
	str("<s>")
	str("<|end|>")
	str("hello")
	str("tokenizer.ggml.scores")
	le(uint32(ggufArray))
	le(uint32(ggufFloat32))
	le(uint64(3))
	le([3]float32{0, 0, 0})
	str("tokenizer.ggml.eos_token_id")
	le(uint32(ggufUint32))
	le(uint32(1))
	str("tokenizer.chat_template")
	le(uint32(ggufString))
	str(tinyTemplate)
	// Tensor data would follow; it must never be read.
	w.WriteString(strings.Repeat("\x00", 1024))
	tp, err := Load(writeFile(t, "model.gguf", w.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if tp.Source != tinyTemplate || tp.EOS != "<|end|>" {
		t.Errorf("got %+v", tp)
	}

	_, err = Load(writeFile(t, "cut.gguf", w.Bytes()[:60]))
	if err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Errorf("truncated header: %v", err)
	}
}

func TestRenderErrorsNameTheTemplate(t *testing.T) {
	bad := writeFile(t, "bad.jinja", []byte(`{% for m in messages %}{{ m.content }`))
	_, err := Load(bad)
	if err != nil {
		t.Fatal(err)
	}
	tp, _ := Load(bad)
	if _, err := tp.Derive(); err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "does not parse as Jinja") {
		t.Errorf("unparsable template: %v", err)
	}
	raises, _ := Load(writeFile(t, "raises.jinja", []byte(`{{ raise_exception("System role not supported") }}`)))
	if _, err := raises.Derive(); err == nil || !strings.Contains(err.Error(), "System role not supported") {
		t.Errorf("raise_exception: %v", err)
	}
	plain, _ := Load(writeFile(t, "plain.jinja", []byte(tinyTemplate)))
	if _, err := plain.Derive(); err == nil || !strings.Contains(err.Error(), "no tool-call support") {
		t.Errorf("template without tools: %v", err)
	}
}

func TestToJSONLikePython(t *testing.T) {
	tp, _ := Load(writeFile(t, "j.jinja", []byte(`{{ messages[0].content | tojson }}|{{ {"b": [1, 2.5, true, none], "a": "x<y>'"} | tojson }}|{{ {"k": 1} | tojson(indent=2) }}`)))
	out, err := tp.Render([]Message{{Role: "user", Content: "é\"\n"}}, RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "\"é\\\"\\n\"|{\"b\": [1, 2.5, true, null], \"a\": \"x<y>'\"}|{\n  \"k\": 1\n}"
	if out != want {
		t.Errorf("got  %q\nwant %q", out, want)
	}
}
