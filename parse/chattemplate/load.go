package chattemplate

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Template is a model's chat template and the special tokens it refers to.
//
// A Template is parsed on first use and keeps what Derive found; use it by
// pointer.
type Template struct {
	// Name says where the template came from, for messages.
	Name   string
	Source string
	BOS    string
	EOS    string

	compiled compiled
	derived  deriveResult
	// maxSteps and maxHeap, when set, bound a render's steps and heap
	// growth below maxSteps and maxHeapGrowth (tests reach the bounds
	// without waiting on a slow machine).
	maxSteps, maxHeap int
}

// maxSource bounds a template file: real ones are a few tens of kilobytes.
const maxSource = 4 << 20

// Load reads a template from path: a Jinja file, a tokenizer_config.json
// (chat_template as a string or as a list of named templates, of which
// "tool_use" is preferred, then "default"), or a GGUF model file, of which
// only the header is read.
//
// A directory is a model's directory: its chat_template.jinja, else its
// tokenizer_config.json. A tokenizer_config.json without a template takes
// the chat_template.jinja beside it (newer models keep it apart), and a
// chat_template.jinja takes the BOS and EOS tokens of the
// tokenizer_config.json beside it.
func Load(path string) (*Template, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		for _, name := range []string{"chat_template.jinja", "tokenizer_config.json"} {
			p := filepath.Join(path, name)
			if _, err := os.Stat(p); err == nil {
				return Load(p)
			}
		}
		return nil, fmt.Errorf("%s: a directory without chat_template.jinja or tokenizer_config.json; give the template file", path)
	}
	t, err := load(path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	switch {
	case t.Source == "" && strings.EqualFold(filepath.Base(path), "tokenizer_config.json"):
		sib := filepath.Join(dir, "chat_template.jinja")
		src, err := ReadFile(sib)
		if err != nil {
			return nil, fmt.Errorf("%s: no chat_template in it, and none beside it (%v); give the model's template file", path, err)
		}
		t.Source, t.Name = string(src), sib
	case filepath.Base(path) == "chat_template.jinja" && t.BOS == "" && t.EOS == "":
		if b, err := ReadFile(filepath.Join(dir, "tokenizer_config.json")); err == nil {
			if cfg, err := fromTokenizerConfig(bytes.TrimSpace(b), true); err == nil {
				t.BOS, t.EOS = cfg.BOS, cfg.EOS
			}
		}
	}
	return t, nil
}

// OpenFile opens a file a template is read from. Only a regular file is
// opened: a FIFO (or a device, a socket) named like a template would hang
// the read or never end, so it is an error, and the open does not block
// to find out.
func OpenFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file (%v); give the template file itself", path, st.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads a template file, a regular file of at most 4 MiB (see
// OpenFile).
func ReadFile(path string) ([]byte, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSource+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxSource {
		return nil, fmt.Errorf("%s: larger than %d MiB; is this a chat template?", path, maxSource>>20)
	}
	return b, nil
}

func load(path string) (*Template, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading chat template: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(4)
	if string(head) == "GGUF" {
		t, err := readGGUF(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		t.Name = path
		return t, nil
	}
	src, err := io.ReadAll(io.LimitReader(br, maxSource+1))
	if err != nil {
		return nil, fmt.Errorf("reading chat template: %w", err)
	}
	if len(src) > maxSource {
		return nil, fmt.Errorf("%s: larger than %d MiB; is this a chat template?", path, maxSource>>20)
	}
	trimmed := bytes.TrimSpace(src)
	if strings.EqualFold(filepath.Ext(path), ".json") || len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed) {
		t, err := fromTokenizerConfig(trimmed, strings.EqualFold(filepath.Base(path), "tokenizer_config.json"))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		t.Name = path
		return t, nil
	}
	return &Template{Name: path, Source: string(src)}, nil
}

// FromSource wraps template text that came from elsewhere (a server).
func FromSource(name, src string) *Template { return &Template{Name: name, Source: src} }

// fromTokenizerConfig reads a Hugging Face tokenizer_config.json. With
// optional, a config without a template comes back with an empty Source.
func fromTokenizerConfig(b []byte, optional bool) (*Template, error) {
	var cfg struct {
		ChatTemplate json.RawMessage `json:"chat_template"`
		BOS          json.RawMessage `json:"bos_token"`
		EOS          json.RawMessage `json:"eos_token"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return nil, fmt.Errorf("not a tokenizer_config.json: %w", err)
	}
	t := &Template{BOS: specialToken(cfg.BOS), EOS: specialToken(cfg.EOS)}
	if len(cfg.ChatTemplate) == 0 || string(cfg.ChatTemplate) == "null" {
		if optional {
			return t, nil
		}
		return nil, errors.New("no chat_template in this JSON file; give the model's tokenizer_config.json or its chat_template.jinja")
	}
	if err := json.Unmarshal(cfg.ChatTemplate, &t.Source); err == nil {
		return t, nil
	}
	var named []struct {
		Name     string `json:"name"`
		Template string `json:"template"`
	}
	if err := json.Unmarshal(cfg.ChatTemplate, &named); err != nil || len(named) == 0 {
		return nil, errors.New("chat_template is neither a string nor a list of {\"name\", \"template\"}")
	}
	pick := -1
	for _, want := range []string{"tool_use", "default"} {
		for i, n := range named {
			if pick < 0 && n.Name == want {
				pick = i
			}
		}
	}
	if pick < 0 {
		pick = 0
	}
	t.Source = named[pick].Template
	return t, nil
}

// specialToken reads bos_token/eos_token: a string or {"content": …}.
func specialToken(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		return obj.Content
	}
	return ""
}

// GGUF metadata value types.
const (
	ggufUint8 = iota
	ggufInt8
	ggufUint16
	ggufInt16
	ggufUint32
	ggufInt32
	ggufFloat32
	ggufBool
	ggufString
	ggufArray
	ggufUint64
	ggufInt64
	ggufFloat64
)

// ggufFixed is the size of each fixed-size value type.
var ggufFixed = map[uint32]int{ggufUint8: 1, ggufInt8: 1, ggufUint16: 2, ggufInt16: 2, ggufUint32: 4, ggufInt32: 4, ggufFloat32: 4, ggufBool: 1, ggufUint64: 8, ggufInt64: 8, ggufFloat64: 8}

// readGGUF reads the metadata of a GGUF file (version 2 or 3) up to the
// tensor infos: tokenizer.chat_template, and the BOS/EOS tokens by id.
func readGGUF(r *bufio.Reader) (*Template, error) {
	g := &ggufReader{r: r}
	var hdr [24]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, fmt.Errorf("GGUF header: %w", err)
	}
	if v := binary.LittleEndian.Uint32(hdr[4:]); v < 2 || v > 3 {
		return nil, fmt.Errorf("GGUF version %d is not supported (2 and 3 are)", v)
	}
	n := binary.LittleEndian.Uint64(hdr[16:])
	if n > 1<<20 {
		return nil, fmt.Errorf("GGUF header claims %d metadata keys; the file is damaged", n)
	}
	t := &Template{}
	bos, eos := int64(-1), int64(-1)
	var tokens []string
	for range n {
		key, err := g.str()
		if err != nil {
			return nil, err
		}
		typ, err := g.u32()
		if err != nil {
			return nil, err
		}
		switch {
		case key == "tokenizer.chat_template" && typ == ggufString:
			if t.Source, err = g.str(); err != nil {
				return nil, err
			}
		case (key == "tokenizer.ggml.bos_token_id" || key == "tokenizer.ggml.eos_token_id") && typ == ggufUint32:
			v, err := g.u32()
			if err != nil {
				return nil, err
			}
			if key == "tokenizer.ggml.bos_token_id" {
				bos = int64(v)
			} else {
				eos = int64(v)
			}
		case key == "tokenizer.ggml.tokens" && typ == ggufArray:
			if tokens, err = g.strings(); err != nil {
				return nil, err
			}
		default:
			if err := g.skip(typ); err != nil {
				return nil, fmt.Errorf("GGUF metadata %q: %w", key, err)
			}
		}
	}
	if t.Source == "" {
		return nil, errors.New("this GGUF file has no tokenizer.chat_template; pass the model's template file instead")
	}
	if bos >= 0 && bos < int64(len(tokens)) {
		t.BOS = tokens[bos]
	}
	if eos >= 0 && eos < int64(len(tokens)) {
		t.EOS = tokens[eos]
	}
	return t, nil
}

type ggufReader struct {
	r     *bufio.Reader
	buf   [8]byte
	depth int // arrays open in skip
}

func (g *ggufReader) u32() (uint32, error) {
	if _, err := io.ReadFull(g.r, g.buf[:4]); err != nil {
		return 0, fmt.Errorf("GGUF header cut short: %w", err)
	}
	return binary.LittleEndian.Uint32(g.buf[:4]), nil
}

func (g *ggufReader) u64() (uint64, error) {
	if _, err := io.ReadFull(g.r, g.buf[:8]); err != nil {
		return 0, fmt.Errorf("GGUF header cut short: %w", err)
	}
	return binary.LittleEndian.Uint64(g.buf[:8]), nil
}

func (g *ggufReader) str() (string, error) {
	n, err := g.u64()
	if err != nil {
		return "", err
	}
	if n > maxSource {
		return "", fmt.Errorf("GGUF string of %d bytes; the file is damaged", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(g.r, b); err != nil {
		return "", fmt.Errorf("GGUF header cut short: %w", err)
	}
	return string(b), nil
}

// strings reads an array of strings (after its type tag).
func (g *ggufReader) strings() ([]string, error) {
	et, err := g.u32()
	if err != nil {
		return nil, err
	}
	n, err := g.u64()
	if err != nil {
		return nil, err
	}
	if et != ggufString {
		return nil, g.skipN(et, n)
	}
	if n > 1<<24 {
		return nil, fmt.Errorf("GGUF token list of %d entries; the file is damaged", n)
	}
	// The count is the file's word: memory grows with the tokens read,
	// not with what the header claims.
	out := make([]string, 0, min(n, 1<<16))
	for range n {
		s, err := g.str()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// maxGGUFDepth bounds arrays of arrays: real files nest them a level or
// two, and each level is a call, so a file of nested array headers alone
// would otherwise overflow the stack.
const maxGGUFDepth = 8

func (g *ggufReader) skip(typ uint32) error {
	if typ == ggufArray {
		g.depth++
		defer func() { g.depth-- }()
		if g.depth > maxGGUFDepth {
			return fmt.Errorf("arrays nested more than %d deep; the file is damaged", maxGGUFDepth)
		}
		et, err := g.u32()
		if err != nil {
			return err
		}
		n, err := g.u64()
		if err != nil {
			return err
		}
		return g.skipN(et, n)
	}
	return g.skipN(typ, 1)
}

func (g *ggufReader) skipN(typ uint32, n uint64) error {
	if size, ok := ggufFixed[typ]; ok {
		if n > 1<<32 {
			return errors.New("array too long; the file is damaged")
		}
		_, err := g.r.Discard(int(n) * size)
		return err
	}
	for range n {
		switch typ {
		case ggufString:
			l, err := g.u64()
			if err != nil {
				return err
			}
			if l > maxSource {
				return errors.New("string too long; the file is damaged")
			}
			if _, err := g.r.Discard(int(l)); err != nil {
				return err
			}
		case ggufArray:
			if err := g.skip(ggufArray); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown value type %d", typ)
		}
	}
	return nil
}
