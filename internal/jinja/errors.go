package jinja

import (
	"errors"
	"fmt"
)

// ErrNoFiles is the error of a template that would read another one
// (include, import, from, extends): the engine has no loader, and such a
// template does not parse. A *SyntaxError carries it (errors.Is).
var ErrNoFiles = errors.New("a template may not read other templates")

// ErrLimit is the error of a render stopped by one of its Limits; a
// *LimitError says which (errors.As).
var ErrLimit = errors.New("a render bound was reached")

// ErrTooLarge is the error of a value that would pass Limits.MaxString or
// Limits.MaxItems (a *LimitError with Bound String or Items is it).
var ErrTooLarge = errors.New("value larger than allowed")

// SyntaxError is a template that does not parse.
type SyntaxError struct {
	Line int
	Msg  string
	Tag  string // the file tag refused, with ErrNoFiles
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

func (e *SyntaxError) Is(target error) bool { return target == ErrNoFiles && e.Tag != "" }

func syntaxErrorf(line int, format string, a ...any) error {
	return &SyntaxError{Line: line, Msg: fmt.Sprintf(format, a...)}
}

// Bound names one of Limits' bounds.
type Bound uint8

const (
	BoundSteps   Bound = iota + 1 // loop iterations, calls, operators
	BoundOutput                   // bytes written
	BoundString                   // one string's bytes
	BoundItems                    // one list's items
	BoundDepth                    // macro calls under way
	BoundNesting                  // expressions and blocks nested, parsed
)

// LimitError is a render (or parse) that reached a bound.
type LimitError struct {
	Bound Bound
	Max   int
}

func (e *LimitError) Error() string {
	switch e.Bound {
	case BoundSteps:
		return fmt.Sprintf("it ran more than %d loop iterations, macro calls and operators", e.Max)
	case BoundOutput:
		return fmt.Sprintf("it wrote more than %d bytes", e.Max)
	case BoundString:
		return fmt.Sprintf("a string of more than %d bytes", e.Max)
	case BoundItems:
		return fmt.Sprintf("a list of more than %d items", e.Max)
	case BoundDepth:
		return fmt.Sprintf("macro calls nested more than %d deep: the template recurses without end", e.Max)
	}
	return fmt.Sprintf("expressions or blocks nested more than %d deep", e.Max)
}

func (e *LimitError) Is(target error) bool {
	return target == ErrLimit || target == ErrTooLarge && (e.Bound == BoundString || e.Bound == BoundItems)
}

// RenderError is a template that fails while it renders: Type is the
// Python exception Jinja raises there (UndefinedError, TypeError, …).
type RenderError struct {
	Line int
	Type string
	Msg  string
	Err  error // what a callable returned, if it failed
}

func (e *RenderError) Error() string {
	if e.Err != nil && e.Msg == "" {
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("line %d: %s: %s", e.Line, e.Type, e.Msg)
}

func (e *RenderError) Unwrap() error { return e.Err }

// failure is an error raised during evaluation before its line is known.
type failure struct {
	typ string
	msg string
}

func (f *failure) Error() string { return f.typ + ": " + f.msg }

func typeErrorf(format string, a ...any) error {
	return &failure{"TypeError", fmt.Sprintf(format, a...)}
}

func undefinedErrorf(format string, a ...any) error {
	return &failure{"UndefinedError", fmt.Sprintf(format, a...)}
}

func valueErrorf(format string, a ...any) error {
	return &failure{"ValueError", fmt.Sprintf(format, a...)}
}

func runtimeErrorf(typ, format string, a ...any) error {
	return &failure{typ, fmt.Sprintf(format, a...)}
}
