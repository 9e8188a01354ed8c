// Command calculator evaluates an arithmetic expression. It parses the
// expression itself, by recursive descent, and never hands it to a shell or
// an eval: the expression comes from a model and is data, not code.
//
// Grammar, loosest binding first:
//
//	expr    = term { ("+" | "-") term }
//	term    = unary { ("*" | "/" | "%") unary }
//	unary   = ("-" | "+") unary | power
//	power   = primary [ "^" unary ]          right-associative: 2^3^2 = 2^9
//	primary = number | name | name "(" expr ")" | "(" expr ")"
//
// so -2^2 is -4, as in mathematics. Names are the constants pi and e and
// the functions sqrt, abs, round, floor and ceil. % is the remainder of a
// truncated division, with the sign of the dividend.
//
// The result is printed as plain text. An expression that does not parse,
// or divides by zero, is an error on stderr naming the position (counted
// in characters from 1), with exit status 2.
package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolcall/toolcall/testdata/tools/src/internal/tool"
)

// Limits the tool enforces itself rather than trusting the schema.
const (
	maxLen   = 1000
	maxDepth = 100
)

func main() {
	var args struct {
		Expression *string `json:"expression"`
	}
	if err := tool.ReadArgs(&args); err != nil {
		tool.Fail(2, "%v", err)
	}
	if args.Expression == nil {
		tool.Fail(2, `missing argument "expression", e.g. {"expression": "(2 + 3) * 4"}`)
	}
	v, err := Eval(*args.Expression)
	if err != nil {
		tool.Fail(2, "%v", err)
	}
	fmt.Println(Format(v))
}

// Eval parses and evaluates expr.
func Eval(expr string) (float64, error) {
	if !utf8.ValidString(expr) {
		return 0, fmt.Errorf("the expression is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(expr); n > maxLen {
		return 0, fmt.Errorf("the expression is %d characters long; at most %d are accepted", n, maxLen)
	}
	p := &parser{src: []rune(expr)}
	p.next()
	if p.tok.kind == tEOF {
		return 0, fmt.Errorf("the expression is empty; write one such as (2 + 3) * 4")
	}
	v, err := p.expr()
	if err != nil {
		return 0, err
	}
	if p.err != nil {
		return 0, p.err
	}
	if p.tok.kind != tEOF {
		return 0, p.errorf(p.tok, "unexpected %s after a complete expression; an operator may be missing", p.tok)
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("the result is too large to represent")
	}
	return v, nil
}

// Format prints whole numbers in full up to 15 digits and everything else
// with 15 significant digits, which hides binary rounding: 0.1 + 0.2 is 0.3.
func Format(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	s := strconv.FormatFloat(v, 'g', 15, 64)
	if s == "-0" {
		return "0"
	}
	return s
}

type kind int

const (
	tEOF kind = iota
	tNum
	tName
	tOp // one of + - * / % ^ ( )
)

type token struct {
	kind kind
	pos  int // 1-based character position
	text string
	num  float64
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of expression"
	case tNum:
		return "number " + t.text
	case tName:
		return "name " + strconv.Quote(t.text)
	}
	return strconv.Quote(t.text)
}

type parser struct {
	src   []rune
	i     int
	tok   token
	depth int
	err   error // a lexical error, reported at the next check
}

func (p *parser) errorf(t token, format string, args ...any) error {
	return fmt.Errorf("at position %d: %s", t.pos, fmt.Sprintf(format, args...))
}

// next reads the following token into p.tok.
func (p *parser) next() {
	for p.i < len(p.src) && unicode.IsSpace(p.src[p.i]) {
		p.i++
	}
	start := p.i
	if p.i == len(p.src) {
		p.tok = token{kind: tEOF, pos: start + 1}
		return
	}
	c := p.src[p.i]
	switch {
	case c >= '0' && c <= '9' || c == '.':
		for p.i < len(p.src) && (p.src[p.i] >= '0' && p.src[p.i] <= '9' || p.src[p.i] == '.') {
			p.i++
		}
		text := string(p.src[start:p.i])
		n, err := strconv.ParseFloat(text, 64)
		if err != nil || strings.Count(text, ".") > 1 {
			p.tok = token{kind: tOp, pos: start + 1, text: text}
			p.err = p.errorf(p.tok, "%q is not a number", text)
			return
		}
		p.tok = token{kind: tNum, pos: start + 1, text: text, num: n}
	case unicode.IsLetter(c):
		for p.i < len(p.src) && (unicode.IsLetter(p.src[p.i]) || unicode.IsDigit(p.src[p.i])) {
			p.i++
		}
		p.tok = token{kind: tName, pos: start + 1, text: strings.ToLower(string(p.src[start:p.i]))}
	case strings.ContainsRune("+-*/%^()", c):
		p.i++
		p.tok = token{kind: tOp, pos: start + 1, text: string(c)}
	default:
		p.i++
		p.tok = token{kind: tOp, pos: start + 1, text: string(c)}
		p.err = p.errorf(p.tok, "%q is not an operator; use + - * / %% ^ and parentheses", string(c))
	}
}

func (p *parser) is(op string) bool { return p.tok.kind == tOp && p.tok.text == op && p.err == nil }

func (p *parser) expr() (float64, error) {
	v, err := p.term()
	for err == nil && (p.is("+") || p.is("-")) {
		op := p.tok.text
		p.next()
		var r float64
		if r, err = p.term(); err == nil {
			if op == "+" {
				v += r
			} else {
				v -= r
			}
		}
	}
	return v, err
}

func (p *parser) term() (float64, error) {
	v, err := p.unary()
	for err == nil && (p.is("*") || p.is("/") || p.is("%")) {
		op := p.tok
		p.next()
		var r float64
		if r, err = p.unary(); err != nil {
			break
		}
		switch {
		case op.text == "*":
			v *= r
		case r == 0:
			return 0, p.errorf(op, "division by zero (the %q has 0 on its right)", op.text)
		case op.text == "/":
			v /= r
		default:
			v = math.Mod(v, r)
		}
	}
	return v, err
}

func (p *parser) unary() (float64, error) {
	if p.is("-") || p.is("+") {
		neg := p.tok.text == "-"
		if err := p.enter(); err != nil {
			return 0, err
		}
		defer p.leave()
		p.next()
		v, err := p.unary()
		if neg {
			v = -v
		}
		return v, err
	}
	return p.power()
}

func (p *parser) power() (float64, error) {
	v, err := p.primary()
	if err != nil || !p.is("^") {
		return v, err
	}
	op := p.tok
	p.next()
	exp, err := p.unary()
	if err != nil {
		return 0, err
	}
	r := math.Pow(v, exp)
	if math.IsNaN(r) {
		return 0, p.errorf(op, "%s ^ %s has no real value", Format(v), Format(exp))
	}
	if v == 0 && exp < 0 {
		return 0, p.errorf(op, "division by zero (0 raised to a negative power)")
	}
	return r, nil
}

var constants = map[string]float64{"pi": math.Pi, "e": math.E}

var functions = map[string]func(float64) float64{
	"sqrt":  math.Sqrt,
	"abs":   math.Abs,
	"round": math.Round, // halves away from zero: round(2.5) = 3
	"floor": math.Floor,
	"ceil":  math.Ceil,
}

func (p *parser) primary() (float64, error) {
	if p.err != nil {
		return 0, p.err
	}
	t := p.tok
	switch {
	case t.kind == tNum:
		p.next()
		return t.num, nil
	case t.kind == tName:
		p.next()
		if c, ok := constants[t.text]; ok {
			return c, nil
		}
		f, ok := functions[t.text]
		if !ok {
			return 0, p.errorf(t, "unknown name %q; the names are pi, e, sqrt, abs, round, floor and ceil", t.text)
		}
		if !p.is("(") {
			return 0, p.errorf(p.tok, "%s needs its argument in parentheses, as in %s(2)", t.text, t.text)
		}
		v, err := p.group()
		if err != nil {
			return 0, err
		}
		if t.text == "sqrt" && v < 0 {
			return 0, p.errorf(t, "sqrt of a negative number (%s)", Format(v))
		}
		return f(v), nil
	case p.is("("):
		return p.group()
	}
	return 0, p.errorf(t, "expected a number, a name or \"(\", found %s", t)
}

// group parses "(" expr ")" with p.tok on the "(".
func (p *parser) group() (float64, error) {
	open := p.tok
	if err := p.enter(); err != nil {
		return 0, err
	}
	defer p.leave()
	p.next()
	v, err := p.expr()
	if err != nil {
		return 0, err
	}
	if !p.is(")") {
		if p.err != nil {
			return 0, p.err
		}
		return 0, p.errorf(p.tok, "expected \")\" to close the \"(\" at position %d, found %s", open.pos, p.tok)
	}
	p.next()
	return v, nil
}

// enter bounds nesting, so that a hostile expression cannot make the
// recursion deep.
func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errorf(p.tok, "nested more than %d deep", maxDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }
