// Package tool holds what the example tools share: reading the one line of
// JSON arguments toolcall writes to a tool's stdin, reporting errors the way
// toolcall expects, and writing an MCP CallToolResult.
//
// The tools are examples to copy, so this package stays small and uses the
// standard library only.
package tool

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
)

// MaxArgs bounds the arguments line: a tool should not trust its caller to
// send a reasonable amount, and 4 MiB is far more than any schema here admits.
const MaxArgs = 4 << 20

// ReadArgs reads the arguments line from stdin and decodes it into v, a
// pointer to a struct. Keys the struct does not name are refused, so a model
// that misspells an argument hears about it instead of having it ignored.
func ReadArgs(v any) error {
	line, err := readLine(os.Stdin)
	if err != nil {
		return err
	}
	return DecodeArgs(line, v)
}

func readLine(r io.Reader) ([]byte, error) {
	br := bufio.NewReader(io.LimitReader(r, MaxArgs+1))
	line, err := br.ReadBytes('\n')
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("reading the arguments from stdin: %v", err)
	}
	if len(line) > MaxArgs {
		return nil, fmt.Errorf("the arguments line is longer than %d bytes; send less", MaxArgs)
	}
	return line, nil
}

// DecodeArgs decodes one arguments line into v; see ReadArgs.
func DecodeArgs(line []byte, v any) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return errors.New("no arguments on stdin: expected one line holding a JSON object, such as {}")
	}
	if line[0] != '{' {
		return fmt.Errorf("the arguments must be a JSON object, not %.40s", line)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return explain(err, v)
	}
	if dec.More() {
		return errors.New("extra data after the arguments object; send exactly one JSON object")
	}
	return nil
}

// explain rewrites encoding/json's errors in terms of arguments, naming the
// ones the tool knows, so the message tells the model what to change.
func explain(err error, v any) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return fmt.Errorf("argument %q must be %s, not a JSON %s", typeErr.Field, kind(typeErr.Type), typeErr.Value)
	case errors.As(err, &syntaxErr):
		return fmt.Errorf("the arguments are not valid JSON (at byte %d): %v", syntaxErr.Offset, err)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("unknown argument %s; the arguments are: %s", name, strings.Join(fieldNames(v), ", "))
	}
	return fmt.Errorf("the arguments do not decode: %v", err)
}

func kind(t reflect.Type) string {
	if t == nil {
		return "a different type"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return kind(t.Elem())
	}
	return "a JSON " + t.Kind().String()
}

// fieldNames lists the JSON names of the struct v points to.
func fieldNames(v any) []string {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// Fail reports an error on stderr, where toolcall takes the tail of it for
// the observation, and exits with code: 2 for arguments the caller should
// change, 1 for anything else.
func Fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s: %s\n", filepath.Base(os.Args[0]), fmt.Sprintf(format, args...))
	os.Exit(code)
}

// Result is an MCP CallToolResult with text content only.
type Result struct {
	Content []Content `json:"content"`
	IsError bool      `json:"isError"`
}

// Content is one MCP text content item.
type Content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// WriteResult writes an MCP CallToolResult holding texts, one content item
// each. A tool speaking MCP reports even its errors this way, with isError,
// and exits 0: the result is the error.
func WriteResult(isError bool, texts ...string) {
	res := Result{IsError: isError, Content: []Content{}}
	for _, t := range texts {
		res.Content = append(res.Content, Content{Type: "text", Text: t})
	}
	WriteJSON(res)
}

// WriteJSON writes v as one line of JSON on stdout.
func WriteJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		Fail(1, "encoding the result: %v", err)
	}
	b = append(b, '\n')
	if _, err := os.Stdout.Write(b); err != nil {
		Fail(1, "writing the result: %v", err)
	}
}
