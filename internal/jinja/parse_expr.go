package jinja

import (
	"strconv"
)

// Expressions, by Jinja's precedence from loosest: conditional, or, and,
// not, comparisons, + -, ~, * / // %, **, unary - +, then a primary with
// its postfix (. [] ()) and its filters and tests. A filter applies to a
// unary minus (-3|abs is 3), ~ binds tighter than + ('a' ~ 1 + 2 is
// ('a' ~ 1) + 2), and ** is left-associative, as in Jinja's parser.

// parseTuple is an expression, or a tuple of them when commas follow.
func (p *parser) parseTuple(_ bool) (expr, error) {
	line := p.peek().line
	first, err := p.parseExpr(true)
	if err != nil || !p.isOp(",") {
		return first, err
	}
	items := []expr{first}
	for p.skipOp(",") {
		if t := p.peek(); t.typ == tVarEnd || t.typ == tBlockEnd || p.isOp(")") {
			break
		}
		x, err := p.parseExpr(true)
		if err != nil {
			return nil, err
		}
		items = append(items, x)
	}
	return &eList{pos{line}, items, true}, nil
}

func (p *parser) parseExpr(withCond bool) (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	if !withCond {
		return p.parseOr()
	}
	line := p.peek().line
	mark, markT, saved := len(p.filters), len(p.tests), p.soft
	defer func() { p.soft = saved }()
	x, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	for p.skipName("if") {
		// A conditional expression is soft as a whole, its value too.
		p.filters, p.tests, p.soft = p.filters[:mark], p.tests[:markT], true
		c, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		n := &eCond{pos{line}, c, x, nil}
		if p.skipName("else") {
			if n.b, err = p.parseExpr(true); err != nil {
				return nil, err
			}
		}
		x = n
	}
	return x, nil
}

func (p *parser) parseOr() (expr, error) {
	x, err := p.parseAnd()
	for err == nil && p.isName("or") {
		line := p.next().line
		var y expr
		if y, err = p.parseAnd(); err == nil {
			x = &eBinary{pos{line}, "or", x, y}
		}
	}
	return x, err
}

func (p *parser) parseAnd() (expr, error) {
	x, err := p.parseNot()
	for err == nil && p.isName("and") {
		line := p.next().line
		var y expr
		if y, err = p.parseNot(); err == nil {
			x = &eBinary{pos{line}, "and", x, y}
		}
	}
	return x, err
}

func (p *parser) parseNot() (expr, error) {
	if p.isName("not") {
		line := p.next().line
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		x, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		return &eUnary{pos{line}, "not", x}, nil
	}
	return p.parseCompare()
}

func (p *parser) parseCompare() (expr, error) {
	line := p.peek().line
	x, err := p.parseMath1()
	if err != nil {
		return nil, err
	}
	var n *eCompare
	for {
		t := p.peek()
		op := ""
		switch {
		case t.typ == tOp && (t.s == "==" || t.s == "!=" || t.s == "<" || t.s == "<=" || t.s == ">" || t.s == ">="):
			op = t.s
			p.i++
		case p.isName("in"):
			op = "in"
			p.i++
		case p.isName("not") && p.toks[p.i+1].typ == tName && p.toks[p.i+1].s == "in":
			op = "notin"
			p.i += 2
		}
		if op == "" {
			break
		}
		y, err := p.parseMath1()
		if err != nil {
			return nil, err
		}
		if n == nil {
			n = &eCompare{pos: pos{line}, first: x}
		}
		n.ops, n.rest = append(n.ops, op), append(n.rest, y)
	}
	if n == nil {
		return x, nil
	}
	return n, nil
}

func (p *parser) binaryLevel(ops []string, operand func() (expr, error)) (expr, error) {
	x, err := operand()
	for err == nil {
		t := p.peek()
		if t.typ != tOp {
			break
		}
		found := false
		for _, op := range ops {
			if t.s == op {
				found = true
			}
		}
		if !found {
			break
		}
		p.i++
		var y expr
		if y, err = operand(); err == nil {
			x = &eBinary{pos{t.line}, t.s, x, y}
		}
	}
	return x, err
}

var (
	opsMath1  = []string{"+", "-"}
	opsConcat = []string{"~"}
	opsMath2  = []string{"*", "/", "//", "%"}
	opsPow    = []string{"**"}
)

func (p *parser) parseMath1() (expr, error) { return p.binaryLevel(opsMath1, p.parseConcat) }

func (p *parser) parseConcat() (expr, error) { return p.binaryLevel(opsConcat, p.parseMath2) }

func (p *parser) parseMath2() (expr, error) { return p.binaryLevel(opsMath2, p.parsePow) }

func (p *parser) parsePow() (expr, error) { return p.binaryLevel(opsPow, p.parseUnaryFiltered) }

func (p *parser) parseUnaryFiltered() (expr, error) { return p.parseUnary(true) }

func (p *parser) parseUnary(withFilter bool) (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	t := p.peek()
	var x expr
	var err error
	if t.typ == tOp && (t.s == "-" || t.s == "+") {
		p.i++
		if x, err = p.parseUnary(false); err != nil {
			return nil, err
		}
		x = &eUnary{pos{t.line}, t.s, x}
	} else {
		if x, err = p.parsePrimary(); err != nil {
			return nil, err
		}
		if x, err = p.parsePostfix(x); err != nil {
			return nil, err
		}
	}
	if withFilter {
		return p.parseFilterExpr(x)
	}
	return x, nil
}

func (p *parser) parsePrimary() (expr, error) {
	t := p.next()
	at := pos{t.line}
	switch t.typ {
	case tName:
		switch t.s {
		case "true", "True":
			return &eConst{at, NewBool(true)}, nil
		case "false", "False":
			return &eConst{at, NewBool(false)}, nil
		case "none", "None":
			return &eConst{at, None()}, nil
		}
		return &eName{at, t.s}, nil
	case tString:
		s := t.s
		for p.peek().typ == tString {
			s += p.next().s
		}
		return &eConst{at, NewString(s)}, nil
	case tInt:
		n, err := strconv.ParseInt(t.s, 10, 64)
		if err != nil {
			f, _ := strconv.ParseFloat(t.s, 64)
			return &eConst{at, NewFloat(f)}, nil
		}
		return &eConst{at, NewInt(n)}, nil
	case tFloat:
		f, err := strconv.ParseFloat(t.s, 64)
		if err != nil {
			return nil, syntaxErrorf(t.line, "bad number %s", t.s)
		}
		return &eConst{at, NewFloat(f)}, nil
	case tOp:
		switch t.s {
		case "(":
			if p.skipOp(")") {
				return &eList{at, nil, true}, nil
			}
			x, err := p.parseExpr(true)
			if err != nil {
				return nil, err
			}
			if p.isOp(",") {
				items := []expr{x}
				for p.skipOp(",") && !p.isOp(")") {
					y, err := p.parseExpr(true)
					if err != nil {
						return nil, err
					}
					items = append(items, y)
				}
				x = &eList{at, items, true}
			}
			return x, p.expectOp(")")
		case "[":
			n := &eList{pos: at}
			for !p.skipOp("]") {
				if len(n.items) > 0 {
					if err := p.expectOp(","); err != nil {
						return nil, err
					}
					if p.skipOp("]") {
						break
					}
				}
				x, err := p.parseExpr(true)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, x)
			}
			return n, nil
		case "{":
			n := &eDict{pos: at}
			for !p.skipOp("}") {
				if len(n.keys) > 0 {
					if err := p.expectOp(","); err != nil {
						return nil, err
					}
					if p.skipOp("}") {
						break
					}
				}
				k, err := p.parseExpr(true)
				if err != nil {
					return nil, err
				}
				if err := p.expectOp(":"); err != nil {
					return nil, err
				}
				v, err := p.parseExpr(true)
				if err != nil {
					return nil, err
				}
				n.keys, n.vals = append(n.keys, k), append(n.vals, v)
			}
			return n, nil
		}
	}
	return nil, syntaxErrorf(t.line, "unexpected %s", describe(t))
}

func (p *parser) parsePostfix(x expr) (expr, error) {
	for {
		t := p.peek()
		if t.typ != tOp {
			return x, nil
		}
		switch t.s {
		case ".":
			p.i++
			a := p.next()
			switch a.typ {
			case tName:
				x = &eAttr{pos{a.line}, x, a.s}
			case tInt:
				n, _ := strconv.ParseInt(a.s, 10, 64)
				x = &eItem{pos{a.line}, x, &eConst{pos{a.line}, NewInt(n)}}
			default:
				return nil, syntaxErrorf(a.line, "expected a name after '.', got %s", describe(a))
			}
		case "[":
			p.i++
			var err error
			if x, err = p.parseSubscript(x, t.line); err != nil {
				return nil, err
			}
		case "(":
			p.i++
			c := &eCall{pos: pos{t.line}, fn: x}
			if err := p.parseArgs(&c.callArgs); err != nil {
				return nil, err
			}
			x = c
		default:
			return x, nil
		}
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
	}
}

func (p *parser) parseSubscript(x expr, line int) (expr, error) {
	var parts [3]expr
	n, colons := 0, 0
	for {
		if p.skipOp("]") {
			break
		}
		if p.skipOp(":") {
			colons++
			n++
			if n > 2 {
				return nil, p.fail("a slice takes at most two ':'")
			}
			continue
		}
		if parts[n] != nil {
			return nil, p.fail("expected ']', got %s", describe(p.peek()))
		}
		y, err := p.parseExpr(true)
		if err != nil {
			return nil, err
		}
		parts[n] = y
	}
	if colons == 0 {
		if parts[0] == nil {
			return nil, syntaxErrorf(line, "an empty subscript")
		}
		return &eItem{pos{line}, x, parts[0]}, nil
	}
	return &eSlice{pos{line}, x, parts[0], parts[1], parts[2]}, nil
}

// parseArgs reads call arguments up to ")": positional, name=value,
// *list and **dict.
func (p *parser) parseArgs(c *callArgs) error {
	first := true
	for !p.skipOp(")") {
		if !first {
			if err := p.expectOp(","); err != nil {
				return err
			}
			if p.skipOp(")") {
				return nil
			}
		}
		first = false
		switch {
		case p.skipOp("**"):
			x, err := p.parseExpr(true)
			if err != nil {
				return err
			}
			c.dstar = x
		case p.skipOp("*"):
			x, err := p.parseExpr(true)
			if err != nil {
				return err
			}
			c.star = x
		case p.peek().typ == tName && p.toks[p.i+1].typ == tOp && p.toks[p.i+1].s == "=":
			name := p.next().s
			p.i++
			x, err := p.parseExpr(true)
			if err != nil {
				return err
			}
			c.kwNames, c.kwVals = append(c.kwNames, name), append(c.kwVals, x)
		default:
			x, err := p.parseExpr(true)
			if err != nil {
				return err
			}
			c.args = append(c.args, x)
		}
	}
	return nil
}

func (p *parser) parseFilter(x expr) (*eFilter, error) {
	t := p.peek()
	name, err := p.expectName()
	if err != nil {
		return nil, err
	}
	for p.isOp(".") && p.toks[p.i+1].typ == tName {
		p.i++
		name += "." + p.next().s
	}
	f := &eFilter{pos: pos{t.line}, x: x, name: name}
	if !p.soft {
		p.filters = append(p.filters, name)
	}
	if p.skipOp("(") {
		if err := p.parseArgs(&f.callArgs); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func (p *parser) parseFilterExpr(x expr) (expr, error) {
	for {
		switch {
		case p.isOp("|"):
			p.i++
			f, err := p.parseFilter(x)
			if err != nil {
				return nil, err
			}
			x = f
		case p.isName("is"):
			line := p.next().line
			n := &eTest{pos: pos{line}, x: x}
			n.neg = p.skipName("not")
			name, err := p.expectName()
			if err != nil {
				return nil, err
			}
			n.name = name
			if !p.soft {
				p.tests = append(p.tests, name)
			}
			t := p.peek()
			switch {
			case p.isOp("("):
				p.i++
				if err := p.parseArgs(&n.callArgs); err != nil {
					return nil, err
				}
			case (t.typ == tName && t.s != "else" && t.s != "or" && t.s != "and" && t.s != "is") ||
				t.typ == tString || t.typ == tInt || t.typ == tFloat || p.isOp("[") || p.isOp("{"):
				// One argument without parentheses: x is divisibleby 3.
				a, err := p.parsePrimary()
				if err != nil {
					return nil, err
				}
				if a, err = p.parsePostfix(a); err != nil {
					return nil, err
				}
				n.args = []expr{a}
			}
			x = n
		default:
			return x, nil
		}
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
	}
}
