// Command read_file reads lines of a text file under the root directory
// ($TOOLCALL_ROOT, else the working directory). A path that leads out of
// the root, by "..", as an absolute path or through a symbolic link, is
// refused, and so is a binary file.
//
// It answers in MCP's CallToolResult form: the lines as one text item, a
// second item saying how to read on when more lines follow, and errors as
// a result with isError true (exit status 0, since the result is the
// answer).
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/toolcall/toolcall/testdata/tools/src/internal/tool"
)

const (
	defaultLimit = 200
	maxLimit     = 2000
	maxLine      = 4000      // bytes kept of one line; the rest is cut
	maxOutput    = 256 << 10 // bytes of lines in one result
	sniffSize    = 8000      // bytes looked at to tell a binary file, as git does
)

type args struct {
	Path   string `json:"path"`
	Offset *int   `json:"offset"`
	Limit  *int   `json:"limit"`
}

func main() {
	var a args
	if err := tool.ReadArgs(&a); err != nil {
		tool.WriteResult(true, err.Error())
		return
	}
	texts, err := read(a)
	if err != nil {
		tool.WriteResult(true, err.Error())
		return
	}
	tool.WriteResult(false, texts...)
}

func read(a args) ([]string, error) {
	offset, limit := 1, defaultLimit
	if a.Offset != nil {
		if offset = *a.Offset; offset < 1 {
			return nil, fmt.Errorf(`"offset" is the first line to read, counted from 1; %d is too small`, offset)
		}
	}
	if a.Limit != nil {
		if limit = *a.Limit; limit < 1 || limit > maxLimit {
			return nil, fmt.Errorf(`"limit" must be between 1 and %d lines, not %d`, maxLimit, limit)
		}
	}
	root, err := tool.OpenRoot()
	if err != nil {
		return nil, err
	}
	rel, err := root.Resolve(a.Path, false)
	if err != nil {
		return nil, err
	}
	// Stat before opening: opening a FIFO would block until the timeout.
	info, err := root.FS.Stat(rel)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return nil, fmt.Errorf("%q is a directory; list_dir lists it", a.Path)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%q is not a regular file (%v); read_file reads text files only", a.Path, info.Mode().Type())
	}
	f, err := root.FS.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()

	br := bufio.NewReader(f)
	head, _ := br.Peek(sniffSize)
	if bytes.IndexByte(head, 0) >= 0 {
		return nil, fmt.Errorf("%q is a binary file (it contains NUL bytes); read_file reads text files only", a.Path)
	}
	if !validPrefix(head, len(head) == sniffSize) {
		return nil, fmt.Errorf("%q is not UTF-8 text; read_file reads text files only", a.Path)
	}

	var out strings.Builder
	n, last := 0, offset-1
	for {
		line, cut, err := readLine(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading %q: %v", a.Path, err)
		}
		n++
		if n < offset {
			continue
		}
		if n >= offset+limit || out.Len()+len(line) > maxOutput && n > offset {
			// More follows: say where to go on from.
			text := out.String()
			return []string{text, fmt.Sprintf("Lines %d-%d shown; more follow: call read_file again with offset %d.", offset, last, last+1)}, nil
		}
		out.WriteString(strings.ToValidUTF8(line, "\uFFFD"))
		if cut {
			fmt.Fprintf(&out, " [line cut at %d bytes]", maxLine)
		}
		out.WriteByte('\n')
		last = n
	}
	if n == 0 && offset == 1 {
		return []string{"", "The file is empty."}, nil
	}
	if n < offset {
		return nil, fmt.Errorf("%q has %d lines; offset %d is past the end", a.Path, n, offset)
	}
	return []string{out.String()}, nil
}

// readLine reads one line without its line end, keeping at most maxLine
// bytes of it, cut at a character boundary, and skipping the rest.
func readLine(br *bufio.Reader) (line string, cut bool, err error) {
	var b []byte
	total := 0
	for {
		chunk, err := br.ReadSlice('\n')
		total += len(chunk)
		// Keep two bytes more than maxLine, room for "\r\n".
		if keep := maxLine + 2 - len(b); keep > 0 {
			b = append(b, chunk[:min(len(chunk), keep)]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && (err != io.EOF || total == 0) {
			return "", false, err
		}
		break
	}
	if len(b) == total {
		b = bytes.TrimSuffix(b, []byte("\n"))
		b = bytes.TrimSuffix(b, []byte("\r"))
	}
	if len(b) <= maxLine {
		return string(b), false, nil
	}
	b = b[:maxLine]
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				b = b[:i]
			}
			break
		}
	}
	return string(b), true, nil
}

// validPrefix reports whether b is UTF-8, allowing a character cut off at
// the end when b is only the start of the file.
func validPrefix(b []byte, partial bool) bool {
	if utf8.Valid(b) {
		return true
	}
	if !partial {
		return false
	}
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if utf8.Valid(b[:len(b)-i]) {
			return true
		}
	}
	return false
}
