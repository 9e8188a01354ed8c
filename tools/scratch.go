package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// RefPrefix starts a ref: a pointer to an output saved under --scratch,
// which a model may pass as a string argument of a later call.
const RefPrefix = "ref:"

// MaxRefSize is the largest saved output a ref may pass to a tool: the
// arguments are held in memory and written to the tool's stdin.
const MaxRefSize = 32 << 20

// FinishScratch turns the whole output of a call, streamed into tmpPath
// (a file in dir) while the tool ran, into its scratch file: it copies it
// with secrets replaced to dir/<id>.txt, removes tmpPath and returns
// "ref:<id>". The id is the call's id (made safe for a file name) and the
// first 8 hex digits of the SHA-256 of the saved text, so runs sharing a
// directory do not collide, and the same call with the same output gets
// the same ref.
func FinishScratch(dir, tmpPath, callID string, r *Redactor) (string, error) {
	src, err := os.Open(tmpPath)
	if err != nil {
		return "", fmt.Errorf("saving the whole output under --scratch %s: %w", dir, err)
	}
	defer src.Close()
	dst, err := os.CreateTemp(dir, ".redacted-*")
	if err != nil {
		return "", fmt.Errorf("saving the whole output under --scratch %s: %w; check that the directory exists and is writable", dir, err)
	}
	defer os.Remove(dst.Name()) // after the rename, nothing to remove
	h := sha256.New()
	err = r.Copy(io.MultiWriter(dst, h), src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("saving the whole output under --scratch %s: %w", dir, err)
	}
	id := scratchID(callID) + "-" + hex.EncodeToString(h.Sum(nil))[:8]
	if err := os.Rename(dst.Name(), filepath.Join(dir, id+".txt")); err != nil {
		return "", fmt.Errorf("saving the whole output under --scratch %s: %w", dir, err)
	}
	os.Remove(tmpPath)
	return RefPrefix + id, nil
}

// scratchID makes a call id safe as part of a file name: letters, digits,
// '_' and '-' are kept, anything else becomes '_', and it is cut to 64
// bytes.
func scratchID(callID string) string {
	b := []byte(callID)
	if len(b) > 64 {
		b = b[:64]
	}
	for i, c := range b {
		if !tokenChar[c] {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "call"
	}
	return string(b)
}

// refID returns the id of a string that is a ref: "ref:" followed by at
// least one character and no white space. "ref: refs/heads/main" (the text
// of .git/HEAD) is therefore a string like any other.
func refID(s string) (string, bool) {
	id, ok := strings.CutPrefix(s, RefPrefix)
	if !ok || id == "" || strings.IndexFunc(id, unicode.IsSpace) >= 0 {
		return "", false
	}
	return id, true
}

// ResolveRefs replaces every JSON string value (at any depth; object keys
// are left alone) that is a ref, "ref:<id>", by the text saved in
// dir/<id>.txt, as a JSON string. Everything else is kept byte for byte.
// It fails, naming the ref, when dir is "" (exec ran without --scratch),
// when the id could reach outside dir, when no output was saved under it,
// or when the saved output is larger than MaxRefSize.
func ResolveRefs(args []byte, dir string) ([]byte, error) {
	var out []byte
	at := 0
	for i := 0; i < len(args); i++ {
		if args[i] != '"' {
			continue
		}
		end, escaped := stringEnd(args, i)
		if end < 0 {
			break
		}
		tok := args[i:end]
		i = end - 1
		if isObjectKey(args, end) {
			continue
		}
		var s string
		if escaped {
			if json.Unmarshal(tok, &s) != nil {
				continue
			}
		} else {
			s = string(tok[1 : len(tok)-1])
		}
		id, ok := refID(s)
		if !ok {
			continue
		}
		text, err := readRef(dir, id)
		if err != nil {
			return nil, err
		}
		out = append(out, args[at:end-len(tok)]...)
		out = AppendBytes(out, text)
		at = end
	}
	if out == nil {
		return args, nil
	}
	return append(out, args[at:]...), nil
}

// readRef reads the output saved under id.
func readRef(dir, id string) ([]byte, error) {
	ref := RefPrefix + id
	if dir == "" {
		return nil, fmt.Errorf("argument %q is a ref to a saved output, but exec was run without --scratch DIR, so there is nothing it can point to; pass the value itself", ref)
	}
	if strings.ContainsAny(id, `/\`+"\x00") || strings.Contains(id, "..") || id[0] == '.' {
		return nil, fmt.Errorf("argument %q is not a ref toolcall gave: a ref names a saved output, never a path; pass a ref exactly as an earlier observation gave it", ref)
	}
	path := filepath.Join(dir, id+".txt")
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("argument %q names no saved output in %s: refs come from the \"ref\" of an earlier truncated output; pass one of those exactly as it was given", ref, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s for argument %q: %w", path, ref, err)
	}
	if info.Size() > MaxRefSize {
		return nil, fmt.Errorf("argument %q is a saved output of %d bytes, more than the %d a ref may pass to a tool; pass a smaller part of it instead", ref, info.Size(), MaxRefSize)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s for argument %q: %w", path, ref, err)
	}
	return text, nil
}
