package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/toolcall/toolcall/internal/atomicfile"
	"github.com/toolcall/toolcall/tools/redact"
)

// refPrefix starts a ref: a pointer to an output saved under --scratch,
// which a model may pass as a string argument of a later call.
const refPrefix = "ref:"

// maxRefSize is the largest saved output a ref may pass to a tool: the
// arguments are held in memory and written to the tool's stdin.
const maxRefSize = 32 << 20

// DefaultMaxRefBytes bounds what all the refs of one call pass to the tool
// together (--max-ref-bytes), counted as the tool receives it, JSON strings
// (six bytes for each control character): a few bytes of arguments naming
// one large saved output many times, or one of control characters, would
// otherwise take memory in proportion to the uses, or six times over.
const DefaultMaxRefBytes = 64 << 20

// DefaultMaxScratch is how much of one call's output is saved under
// --scratch when ExecOptions.MaxScratch is 0.
const DefaultMaxScratch = 64 << 20

// hashDigits is how many hex digits of the SHA-256 of a saved output its
// id ends with: 128 bits, so that a ref cannot be found by trying names
// (a 32-bit prefix could be, in an afternoon of calls).
const hashDigits = 32

// Saved outputs are the only files a ref can name. Each is written by
// finishScratch alone, under a name it derives from the call id and the
// SHA-256 of the content ("<call>-<32 hex digits>.txt"), created without
// replacing anything already there. A ref is read only when the file has
// such a name, is a regular file reached without following a link, has
// one link, belongs to this user, and holds exactly the content its name
// was derived from. Anything planted beside them (another name, a
// symlink, a hard link to a file elsewhere, different content) is an
// unknown ref. The check is by content: a file that passes holds nothing
// its writer did not already know, so it gives a caller no more than it
// could pass as a literal value, and that value is checked against the
// schema all the same.

// finishScratch turns the whole output of a call, streamed into tmpPath
// (a file in dir) while the tool ran, into its scratch file: it copies it
// with secrets replaced to dir/<id>.txt, removes tmpPath and returns
// "ref:<id>". The id is the call's id (made safe for a file name) and the
// first 32 hex digits of the SHA-256 of the saved text, so runs sharing a
// directory do not collide, and the same call with the same output gets
// the same ref. dropped is how many bytes of output did not fit under
// --max-scratch-bytes: when not 0, the saved text ends by saying so.
//
// The file is created new: a name already taken by anything but the same
// saved output (such as a planted symlink) is an error, never written
// through or replaced.
func finishScratch(dir, tmpPath, callID string, r *redact.Redactor, dropped int64) (string, error) {
	fail := func(err error) (string, error) {
		return "", fmt.Errorf("saving the whole output under --scratch %s: %w", dir, err)
	}
	src, err := os.Open(tmpPath)
	if err != nil {
		return fail(err)
	}
	defer src.Close()
	dst, err := atomicfile.CreateIn(dir, 0o600)
	if err != nil {
		return "", fmt.Errorf("saving the whole output under --scratch %s: %w; check that the directory exists and is writable", dir, err)
	}
	defer dst.Abort()
	h := sha256.New()
	w := io.MultiWriter(dst, h)
	err = r.Copy(w, src)
	if err == nil && dropped > 0 {
		_, err = fmt.Fprintf(w, "\n[toolcall: the output is cut here: %d more bytes were not saved, past --max-scratch-bytes]\n", dropped)
	}
	if err != nil {
		return fail(err)
	}
	id := scratchID(callID) + "-" + hex.EncodeToString(h.Sum(nil))[:hashDigits]
	if err := publish(dst, dir, id); err != nil {
		return fail(err)
	}
	os.Remove(tmpPath)
	return refPrefix + id, nil
}

// publish gives the finished file its name dir/id.txt, never replacing
// or writing through what is there (atomicfile's CommitNew). An existing
// file is fine only when it is the same saved output.
func publish(f *atomicfile.File, dir, id string) error {
	name := filepath.Join(dir, id+".txt")
	err := f.CommitNew(name)
	if errors.Is(err, fs.ErrExist) {
		if _, rerr := readSaved(dir, id); rerr == nil {
			return nil // saved before: the same call with the same output
		}
		return fmt.Errorf("%s is in the way and was not written by toolcall; remove it", name)
	}
	return err
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
		if !idChar(c) {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "call"
	}
	return string(b)
}

func idChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// savedName splits an id into the call part and the hash digits, or
// reports that finishScratch never gives such a name.
func savedName(id string) (hash string, ok bool) {
	i := strings.LastIndexByte(id, '-')
	if i < 1 || i > 64 || len(id)-i-1 != hashDigits {
		return "", false
	}
	for j := 0; j < i; j++ {
		if !idChar(id[j]) {
			return "", false
		}
	}
	hash = id[i+1:]
	for j := 0; j < len(hash); j++ {
		if c := hash[j]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", false
		}
	}
	return hash, true
}

// refID returns the id of a string that is a ref: "ref:" followed by at
// least one character and no white space. "ref: refs/heads/main" (the text
// of .git/HEAD) is therefore a string like any other.
func refID(s string) (string, bool) {
	id, ok := strings.CutPrefix(s, refPrefix)
	if !ok || id == "" || strings.IndexFunc(id, unicode.IsSpace) >= 0 {
		return "", false
	}
	return id, true
}

// refUse is one ref found in a call's arguments: where, and which.
type refUse struct {
	Pointer string // JSON pointer of the string that was the ref
	Ref     string // "ref:<id>"
}

// readRef reads the output saved under id, for the argument "ref:<id>".
func readRef(dir, id string) ([]byte, error) {
	ref := refPrefix + id
	if dir == "" {
		return nil, fmt.Errorf("argument %q is a ref to a saved output, but toolcall was run without --scratch DIR, so there is nothing it can point to; pass the value itself", ref)
	}
	text, err := readSaved(dir, id)
	switch {
	case errors.Is(err, errNotSaved):
		return nil, fmt.Errorf("argument %q names no saved output in %s: refs come from the \"ref\" of an earlier truncated output; pass one of those exactly as it was given", ref, dir)
	case errors.Is(err, errRefTooLarge):
		return nil, fmt.Errorf("argument %q is a saved output of more than the %d bytes a ref may pass to a tool; pass a smaller part of it instead", ref, maxRefSize)
	case err != nil:
		return nil, fmt.Errorf("reading the saved output for argument %q: %w", ref, err)
	}
	return text, nil
}

var (
	errNotSaved    = errors.New("not a saved output")
	errRefTooLarge = errors.New("saved output too large")
)

// readSaved reads dir/<id>.txt when it is an output finishScratch saved
// (see the comment above finishScratch), or returns errNotSaved.
func readSaved(dir, id string) ([]byte, error) {
	hash, ok := savedName(id)
	if !ok {
		return nil, errNotSaved
	}
	// O_NOFOLLOW: a symlink is refused by the open itself, so none can be
	// swapped in after a check. The name has no separator, so no
	// directory on the way can be one either.
	f, err := os.OpenFile(filepath.Join(dir, id+".txt"), os.O_RDONLY|noFollow|nonBlock, 0)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, err
		}
		return nil, errNotSaved // absent, a link (ELOOP), or not a file
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() || !writtenByUs(info) {
		return nil, errNotSaved
	}
	if info.Size() > maxRefSize {
		return nil, errRefTooLarge
	}
	text, err := io.ReadAll(io.LimitReader(f, maxRefSize+1))
	if err != nil {
		return nil, err
	}
	if len(text) > maxRefSize {
		return nil, errRefTooLarge
	}
	sum := sha256.Sum256(text)
	if hex.EncodeToString(sum[:])[:hashDigits] != hash {
		return nil, errNotSaved
	}
	return text, nil
}
