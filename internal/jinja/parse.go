package jinja

import (
	"strconv"
	"strings"
)

// maxNesting bounds how deep expressions and blocks nest when parsed: the
// parser recurses, and no real template nests this deep.
const maxNesting = 400

type parser struct {
	toks  []token
	i     int
	depth int
	// filters and tests are the names a template uses outside an if:
	// Python's Jinja fails on an unknown one when it compiles the
	// template, and on one inside an if (soft) only when it is reached.
	filters, tests []string
	soft           bool
	loops          int // for bodies open, where break and continue may go
}

// hard parses with soft off: a loop's, macro's or block's body is a new
// frame in Python's Jinja, checked when compiled even inside an if.
func (p *parser) hard(f func() error) error {
	saved := p.soft
	p.soft = false
	err := f()
	p.soft = saved
	return err
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.typ != tEOF {
		p.i++
	}
	return t
}

func (p *parser) isOp(s string) bool {
	t := p.toks[p.i]
	return t.typ == tOp && t.s == s
}

func (p *parser) isName(s string) bool {
	t := p.toks[p.i]
	return t.typ == tName && t.s == s
}

func (p *parser) skipOp(s string) bool {
	if p.isOp(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) skipName(s string) bool {
	if p.isName(s) {
		p.i++
		return true
	}
	return false
}

func describe(t token) string {
	switch t.typ {
	case tEOF:
		return "end of template"
	case tVarEnd:
		return "end of print statement"
	case tBlockEnd:
		return "end of statement block"
	case tString:
		return "string " + strconv.Quote(t.s)
	}
	return "'" + t.s + "'"
}

func (p *parser) fail(format string, a ...any) error {
	return syntaxErrorf(p.peek().line, format, a...)
}

func (p *parser) expectOp(s string) error {
	if !p.skipOp(s) {
		return p.fail("expected '%s', got %s", s, describe(p.peek()))
	}
	return nil
}

func (p *parser) expectName() (string, error) {
	t := p.peek()
	if t.typ != tName {
		return "", p.fail("expected a name, got %s", describe(t))
	}
	p.i++
	return t.s, nil
}

func (p *parser) expectBlockEnd() error {
	if p.peek().typ != tBlockEnd {
		return p.fail("expected the end of the statement block, got %s", describe(p.peek()))
	}
	p.i++
	return nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxNesting {
		return &LimitError{Bound: BoundNesting, Max: maxNesting}
	}
	return nil
}

// parseBody parses nodes until a block tag named in ends, which it
// returns (consumed up to its name); at the end of the template it
// returns "" unless ends is not empty.
func (p *parser) parseBody(ends ...string) ([]node, string, error) {
	if err := p.enter(); err != nil {
		return nil, "", err
	}
	defer func() { p.depth-- }()
	var body []node
	for {
		t := p.next()
		switch t.typ {
		case tEOF:
			if len(ends) > 0 {
				return nil, "", syntaxErrorf(t.line, "unexpected end of template: expected %s", strings.Join(ends, " or "))
			}
			return body, "", nil
		case tText:
			body = append(body, &sText{t.s})
		case tVarBegin:
			x, err := p.parseTuple(true)
			if err != nil {
				return nil, "", err
			}
			if p.peek().typ != tVarEnd {
				return nil, "", p.fail("expected the end of the print statement, got %s", describe(p.peek()))
			}
			p.i++
			body = append(body, &sOutput{pos{t.line}, x})
		case tBlockBegin:
			name := p.peek()
			if name.typ != tName {
				return nil, "", p.fail("expected a tag name, got %s", describe(name))
			}
			for _, e := range ends {
				if name.s == e {
					p.i++
					return body, e, nil
				}
			}
			p.i++
			n, err := p.statement(name)
			if err != nil {
				return nil, "", err
			}
			if n != nil {
				body = append(body, n)
			}
		default:
			return nil, "", syntaxErrorf(t.line, "unexpected %s", describe(t))
		}
	}
}

func (p *parser) statement(name token) (node, error) {
	switch name.s {
	case "if":
		return p.parseIf()
	case "for":
		return p.parseFor(name.line)
	case "set":
		return p.parseSet(name.line)
	case "macro":
		return p.parseMacro(name.line)
	case "call":
		return p.parseCallBlock(name.line)
	case "filter":
		return p.parseFilterBlock(name.line)
	case "with":
		return p.parseWith()
	case "break", "continue":
		if p.loops == 0 {
			return nil, syntaxErrorf(name.line, "'%s' outside a loop", name.s)
		}
		if err := p.expectBlockEnd(); err != nil {
			return nil, err
		}
		if name.s == "break" {
			return &sBreak{}, nil
		}
		return &sContin{}, nil
	case "generation", "block":
		// transformers' {% generation %} marks the assistant's tokens; a
		// block without extends renders where it stands.
		if name.s == "block" {
			if _, err := p.expectName(); err != nil {
				return nil, err
			}
			p.skipName("scoped")
		}
		if err := p.expectBlockEnd(); err != nil {
			return nil, err
		}
		body, _, err := p.parseBody("end" + name.s)
		if err != nil {
			return nil, err
		}
		p.skipName(name.s)
		for p.peek().typ == tName {
			p.i++
		}
		return &sScope{body}, p.expectBlockEnd()
	case "include", "import", "from", "extends":
		return nil, &SyntaxError{Line: name.line, Tag: name.s,
			Msg: "{% " + name.s + " %} is refused: " + ErrNoFiles.Error() + " (the engine has no loader)"}
	}
	return nil, syntaxErrorf(name.line, "encountered unknown tag '%s'", name.s)
}

func (p *parser) parseIf() (node, error) {
	saved := p.soft
	p.soft = true
	defer func() { p.soft = saved }()
	n := &sIf{}
	for {
		c, err := p.parseTuple(false)
		if err != nil {
			return nil, err
		}
		if err := p.expectBlockEnd(); err != nil {
			return nil, err
		}
		body, end, err := p.parseBody("elif", "else", "endif")
		if err != nil {
			return nil, err
		}
		n.conds = append(n.conds, c)
		n.bodies = append(n.bodies, body)
		switch end {
		case "elif":
			continue
		case "else":
			if err := p.expectBlockEnd(); err != nil {
				return nil, err
			}
			if n.els, _, err = p.parseBody("endif"); err != nil {
				return nil, err
			}
		}
		return n, p.expectBlockEnd()
	}
}

func (p *parser) parseTarget(allowNS bool) (target, error) {
	var t target
	for {
		name, err := p.expectName()
		if err != nil {
			return t, err
		}
		if allowNS && len(t.names) == 0 && p.skipOp(".") {
			attr, err := p.expectName()
			if err != nil {
				return t, err
			}
			return target{names: []string{attr}, ns: name}, nil
		}
		t.names = append(t.names, name)
		if !p.skipOp(",") {
			return t, nil
		}
		t.tuple = true
		if p.peek().typ != tName {
			return t, nil
		}
	}
}

func (p *parser) parseFor(line int) (node, error) {
	n := &sFor{pos: pos{line}}
	var err error
	paren := p.skipOp("(")
	if n.target, err = p.parseTarget(false); err != nil {
		return nil, err
	}
	if paren {
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
	}
	if !p.skipName("in") {
		return nil, p.fail("expected 'in', got %s", describe(p.peek()))
	}
	// The iterable is a tuple without its condition: "if" after it filters.
	if n.iter, err = p.parseTupleNoCond(); err != nil {
		return nil, err
	}
	if p.skipName("if") {
		if n.cond, err = p.parseExpr(false); err != nil {
			return nil, err
		}
	}
	n.recursive = p.skipName("recursive")
	if err := p.expectBlockEnd(); err != nil {
		return nil, err
	}
	saved := p.soft
	p.soft = false
	defer func() { p.soft = saved }()
	p.loops++
	body, end, err := p.parseBody("else", "endfor")
	p.loops--
	if err != nil {
		return nil, err
	}
	n.body = body
	if end == "else" {
		if err := p.expectBlockEnd(); err != nil {
			return nil, err
		}
		if n.els, _, err = p.parseBody("endfor"); err != nil {
			return nil, err
		}
	}
	return n, p.expectBlockEnd()
}

func (p *parser) parseTupleNoCond() (expr, error) {
	line := p.peek().line
	first, err := p.parseOr()
	if err != nil || !p.isOp(",") {
		return first, err
	}
	items := []expr{first}
	for p.skipOp(",") {
		x, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		items = append(items, x)
	}
	return &eList{pos{line}, items, true}, nil
}

func (p *parser) parseSet(line int) (node, error) {
	t, err := p.parseTarget(true)
	if err != nil {
		return nil, err
	}
	n := &sSet{pos: pos{line}, target: t}
	if p.skipOp("=") {
		if n.x, err = p.parseTuple(false); err != nil {
			return nil, err
		}
		return n, p.expectBlockEnd()
	}
	for p.skipOp("|") {
		f, err := p.parseFilter(nil)
		if err != nil {
			return nil, err
		}
		n.filters = append(n.filters, f)
	}
	if err := p.expectBlockEnd(); err != nil {
		return nil, err
	}
	if err := p.hard(func() (err error) { n.body, _, err = p.parseBody("endset"); return err }); err != nil {
		return nil, err
	}
	return n, p.expectBlockEnd()
}

func (p *parser) parseSignature(d *macroDef) error {
	if err := p.expectOp("("); err != nil {
		return err
	}
	for !p.skipOp(")") {
		if len(d.params) > 0 {
			if err := p.expectOp(","); err != nil {
				return err
			}
			if p.skipOp(")") {
				break
			}
		}
		name, err := p.expectName()
		if err != nil {
			return err
		}
		d.params = append(d.params, name)
		if p.skipOp("=") {
			x, err := p.parseExpr(true)
			if err != nil {
				return err
			}
			d.defaults = append(d.defaults, x)
		} else if len(d.defaults) > 0 {
			return p.fail("non-default argument follows default argument")
		}
	}
	return nil
}

func (p *parser) parseMacro(line int) (node, error) {
	name, err := p.expectName()
	if err != nil {
		return nil, err
	}
	n := &sMacro{pos: pos{line}, name: name}
	if err := p.parseSignature(&n.macroDef); err != nil {
		return nil, err
	}
	if err := p.expectBlockEnd(); err != nil {
		return nil, err
	}
	loops := p.loops
	p.loops = 0 // a macro is a function of its own: no loop around it
	err = p.hard(func() (err error) { n.body, _, err = p.parseBody("endmacro"); return err })
	p.loops = loops
	if err != nil {
		return nil, err
	}
	p.skipName(name)
	return n, p.expectBlockEnd()
}

func (p *parser) parseCallBlock(line int) (node, error) {
	n := &sCallBlock{pos: pos{line}}
	if p.isOp("(") {
		if err := p.parseSignature(&n.macroDef); err != nil {
			return nil, err
		}
	}
	x, err := p.parseExpr(true)
	if err != nil {
		return nil, err
	}
	c, ok := x.(*eCall)
	if !ok {
		return nil, syntaxErrorf(line, "expected a call after {%% call %%}")
	}
	n.call = c
	if err := p.expectBlockEnd(); err != nil {
		return nil, err
	}
	loops := p.loops
	p.loops = 0
	err = p.hard(func() (err error) { n.body, _, err = p.parseBody("endcall"); return err })
	p.loops = loops
	if err != nil {
		return nil, err
	}
	return n, p.expectBlockEnd()
}

func (p *parser) parseFilterBlock(line int) (node, error) {
	n := &sFilterBlock{pos: pos{line}}
	for {
		f, err := p.parseFilter(nil)
		if err != nil {
			return nil, err
		}
		n.filters = append(n.filters, f)
		if !p.skipOp("|") {
			break
		}
	}
	if err := p.expectBlockEnd(); err != nil {
		return nil, err
	}
	if err := p.hard(func() (err error) { n.body, _, err = p.parseBody("endfilter"); return err }); err != nil {
		return nil, err
	}
	return n, p.expectBlockEnd()
}

func (p *parser) parseWith() (node, error) {
	n := &sWith{}
	for p.peek().typ != tBlockEnd {
		if len(n.names) > 0 {
			if err := p.expectOp(","); err != nil {
				return nil, err
			}
		}
		name, err := p.expectName()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp("="); err != nil {
			return nil, err
		}
		x, err := p.parseExpr(true)
		if err != nil {
			return nil, err
		}
		n.names, n.vals = append(n.names, name), append(n.vals, x)
	}
	p.i++
	var err error
	if n.body, _, err = p.parseBody("endwith"); err != nil {
		return nil, err
	}
	return n, p.expectBlockEnd()
}
