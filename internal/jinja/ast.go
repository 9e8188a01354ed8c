package jinja

// The syntax tree: expressions (e*) and statements (s*), each with the
// line it starts on for errors.

type expr interface{ lineOf() int }

type pos struct{ line int }

func (p pos) lineOf() int { return p.line }

type (
	eConst struct {
		pos
		v Value
	}
	eName struct {
		pos
		name string
	}
	eAttr struct {
		pos
		x    expr
		name string
	}
	eItem struct {
		pos
		x, key expr
	}
	eSlice struct {
		pos
		x, lo, hi, step expr // nil when left out
	}
	eCall struct {
		pos
		fn expr
		callArgs
	}
	eFilter struct {
		pos
		x    expr // nil in a filter block's chain
		name string
		callArgs
	}
	eTest struct {
		pos
		x    expr
		name string
		neg  bool
		callArgs
	}
	eUnary struct {
		pos
		op string // "-", "+", "not"
		x  expr
	}
	eBinary struct {
		pos
		op   string
		a, b expr
	}
	eCompare struct {
		pos
		first expr
		ops   []string
		rest  []expr
	}
	eCond struct {
		pos
		cond, a, b expr // b nil: undefined
	}
	eList struct {
		pos
		items []expr
		tuple bool
	}
	eDict struct {
		pos
		keys, vals []expr
	}
)

type callArgs struct {
	args        []expr
	kwNames     []string
	kwVals      []expr
	star, dstar expr
}

type node interface{}

type (
	sText   struct{ s string }
	sOutput struct {
		pos
		x expr
	}
	sIf struct {
		conds  []expr
		bodies [][]node
		els    []node
	}
	sFor struct {
		pos
		target    target
		iter      expr
		cond      expr
		body, els []node
		recursive bool
	}
	sSet struct {
		pos
		target  target
		x       expr   // nil: a block set
		body    []node // a block set's body
		filters []*eFilter
	}
	sMacro struct {
		pos
		name string
		macroDef
	}
	sCallBlock struct {
		pos
		call *eCall
		macroDef
	}
	sFilterBlock struct {
		pos
		filters []*eFilter
		body    []node
	}
	sWith struct {
		names []string
		vals  []expr
		body  []node
	}
	sScope  struct{ body []node }
	sBreak  struct{}
	sContin struct{}
)

type macroDef struct {
	params   []string
	defaults []expr // aligned to the last params
	body     []node
}

// target is what set and for assign to: names (more than one unpacks),
// or a namespace's attribute.
type target struct {
	names []string
	ns    string // set ns.attr: ns, and names[0] is attr
	tuple bool
}
