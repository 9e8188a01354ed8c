package jinja

import (
	"context"
	"errors"
	"strings"
	"unsafe"
)

// defaultMaxDepth bounds macro calls under way when Limits.Depth is 0,
// so that no template overflows the stack.
const defaultMaxDepth = 1000

var (
	errBreak    = errors.New("break outside a loop")
	errContinue = errors.New("continue outside a loop")
)

type renderer struct {
	ctx     context.Context
	done    <-chan struct{}
	o       *Options
	vars    map[string]Value
	out     *strings.Builder
	written int
	steps   int
	depth   int
	// kwOrder is the order of the keyword arguments evalArgs evaluated
	// last: a macro's kwargs keep the call's order, as Python's do.
	kwOrder []string
}

// scope is one level of variables: the template's, a loop iteration's, a
// macro call's. Few names live in one, so a slice beats a map.
type scope struct {
	names  []string
	vals   []Value
	parent *scope
}

func (sc *scope) lookup(name string) (Value, bool) {
	for s := sc; s != nil; s = s.parent {
		for i := len(s.names) - 1; i >= 0; i-- {
			if s.names[i] == name {
				return s.vals[i], true
			}
		}
	}
	return Value{}, false
}

func (sc *scope) set(name string, v Value) {
	for i, n := range sc.names {
		if n == name {
			sc.vals[i] = v
			return
		}
	}
	sc.names = append(sc.names, name)
	sc.vals = append(sc.vals, v)
}

// step counts one step and checks the bounds and the context.
func (r *renderer) step() error {
	r.steps++
	if r.o.Steps > 0 && r.steps > r.o.Steps {
		return &LimitError{Bound: BoundSteps, Max: r.o.Steps}
	}
	if r.done != nil {
		select {
		case <-r.done:
			return r.ctx.Err()
		default:
		}
	}
	if r.o.Step != nil {
		return r.o.Step()
	}
	return nil
}

// work counts n steps more: the cost of an operation that goes over
// many bytes or items (a step per 4 KiB built or read, per 64 items
// copied or compared), so that Steps bounds a render's time, not only
// its loop iterations: a loop that builds a large string at each turn
// stops as soon as one that turns often.
func (r *renderer) work(n int) error {
	if r == nil || n <= 0 {
		return nil
	}
	r.steps += n
	if r.o.Steps > 0 && r.steps > r.o.Steps {
		return &LimitError{Bound: BoundSteps, Max: r.o.Steps}
	}
	return nil
}

// cost is the work of reading v once.
func cost(v Value) int {
	switch v.k {
	case KindString:
		return int(v.n >> 12)
	case KindList:
		return len(v.AsList().Items) >> 6
	case KindDict:
		return len(v.AsDict().Keys) >> 6
	}
	return 0
}

// sized checks a string of n bytes before it is built, and counts its
// work.
func (r *renderer) sized(n int) error {
	if r == nil {
		return nil
	}
	if r.o.String > 0 && (n > r.o.String || n < 0) {
		return &LimitError{Bound: BoundString, Max: r.o.String}
	}
	if err := r.work(n >> 12); err != nil {
		return err
	}
	return r.step()
}

// counted checks a list of n items before it is built, and counts its
// work.
func (r *renderer) counted(n int) error {
	if r == nil {
		return nil
	}
	if r.o.Items > 0 && (n > r.o.Items || n < 0) {
		return &LimitError{Bound: BoundItems, Max: r.o.Items}
	}
	if err := r.work(n >> 6); err != nil {
		return err
	}
	return r.step()
}

func (r *renderer) write(s string) error {
	r.written += len(s)
	if r.o.Output > 0 && r.written > r.o.Output {
		return &LimitError{Bound: BoundOutput, Max: r.o.Output}
	}
	r.out.WriteString(s)
	return nil
}

// capture renders body into a string of its own.
func (r *renderer) capture(sc *scope, body []node) (string, error) {
	saved := r.out
	var b strings.Builder
	r.out = &b
	err := r.block(sc, body)
	r.out = saved
	return b.String(), err
}

// evalAt evaluates x for a statement, giving a failure its line.
func (r *renderer) evalAt(sc *scope, x expr) (Value, error) {
	v, err := r.eval(sc, x)
	if err != nil {
		return v, r.located(err, x.lineOf())
	}
	return v, nil
}

func (r *renderer) located(err error, line int) error {
	var f *failure
	if errors.As(err, &f) {
		return &RenderError{Line: line, Type: f.typ, Msg: f.msg}
	}
	var re *RenderError
	var le *LimitError
	if errors.As(err, &re) || errors.As(err, &le) || errors.Is(err, errBreak) || errors.Is(err, errContinue) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &RenderError{Line: line, Err: err}
}

func (r *renderer) block(sc *scope, body []node) error {
	for _, n := range body {
		if err := r.exec(sc, n); err != nil {
			return err
		}
	}
	return nil
}

func (r *renderer) exec(sc *scope, n node) error {
	switch n := n.(type) {
	case *sText:
		return r.write(n.s)
	case *sOutput:
		v, err := r.evalAt(sc, n.x)
		if err != nil {
			return err
		}
		if v.k == KindString {
			return r.write(v.str())
		}
		return r.write(Print(v))
	case *sIf:
		for i, c := range n.conds {
			v, err := r.evalAt(sc, c)
			if err != nil {
				return err
			}
			if v.IsTruthy() {
				return r.block(sc, n.bodies[i])
			}
		}
		return r.block(sc, n.els)
	case *sFor:
		it, err := r.evalAt(sc, n.iter)
		if err != nil {
			return err
		}
		return r.loop(sc, n, it, 0)
	case *sSet:
		return r.execSet(sc, n)
	case *sMacro:
		sc.set(n.name, r.macro(sc, n.name, &n.macroDef, n.line))
		return nil
	case *sCallBlock:
		caller := r.macro(sc, "caller", &n.macroDef, n.line)
		c := *n.call
		c.kwNames = append(append([]string(nil), c.kwNames...), "caller")
		c.kwVals = append(append([]expr(nil), c.kwVals...), &eConst{pos{n.line}, caller})
		v, err := r.evalAt(sc, &c)
		if err != nil {
			return err
		}
		return r.write(Print(v))
	case *sFilterBlock:
		s, err := r.capture(&scope{parent: sc}, n.body)
		if err != nil {
			return err
		}
		v := NewString(s)
		for _, f := range n.filters {
			if v, err = r.applyFilter(sc, f, v); err != nil {
				return r.located(err, f.line)
			}
		}
		return r.write(Print(v))
	case *sWith:
		inner := &scope{parent: sc}
		for i, name := range n.names {
			v, err := r.evalAt(sc, n.vals[i])
			if err != nil {
				return err
			}
			inner.set(name, v)
		}
		return r.block(inner, n.body)
	case *sScope:
		return r.block(&scope{parent: sc}, n.body)
	case *sBreak:
		return errBreak
	case *sContin:
		return errContinue
	}
	return nil
}

func (r *renderer) execSet(sc *scope, n *sSet) error {
	var v Value
	var err error
	if n.x != nil {
		if v, err = r.evalAt(sc, n.x); err != nil {
			return err
		}
	} else {
		s, err := r.capture(&scope{parent: sc}, n.body)
		if err != nil {
			return err
		}
		v = NewString(s)
		for _, f := range n.filters {
			if v, err = r.applyFilter(sc, f, v); err != nil {
				return r.located(err, f.line)
			}
		}
	}
	if n.target.ns != "" {
		ns, _ := sc.lookup(n.target.ns)
		if ns.k != kindNamespace {
			return &RenderError{Line: n.line, Type: "TemplateRuntimeError", Msg: "cannot assign attribute on non-namespace object"}
		}
		ns.AsDict().Set(n.target.names[0], v)
		return nil
	}
	return r.assign(sc, n.target, v, n.line)
}

// assign binds a target's names to v, unpacking it over several.
func (r *renderer) assign(sc *scope, t target, v Value, line int) error {
	if !t.tuple {
		sc.set(t.names[0], v)
		return nil
	}
	items, err := r.iterate(v)
	if err != nil {
		return r.located(err, line)
	}
	if len(items) != len(t.names) {
		if len(items) < len(t.names) {
			return &RenderError{Line: line, Type: "ValueError", Msg: "not enough values to unpack"}
		}
		return &RenderError{Line: line, Type: "ValueError", Msg: "too many values to unpack"}
	}
	for i, name := range t.names {
		sc.set(name, items[i])
	}
	return nil
}

// iterate is the items a for loop over v sees: a dict's keys, a str's
// characters; undefined is empty.
func (r *renderer) iterate(v Value) ([]Value, error) {
	if err := r.work(cost(v)); err != nil {
		return nil, err
	}
	switch v.k {
	case KindList:
		l := v.AsList()
		if v.fl&flagIter != 0 {
			if l.spent {
				return nil, nil
			}
			l.spent = true
		}
		return l.Items, nil
	case KindDict:
		d := v.AsDict()
		keys := make([]Value, len(d.Keys))
		for i, k := range d.Keys {
			keys[i] = d.keyOf(k)
		}
		return keys, nil
	case KindString:
		var out []Value
		if err := r.counted(len(v.str())); err != nil {
			return nil, err
		}
		for _, c := range v.str() {
			out = append(out, NewString(string(c)))
		}
		return out, nil
	case KindUndefined:
		return nil, nil
	}
	return nil, typeErrorf("'%s' object is not iterable", typeName(v))
}

// loopState is a for loop's loop variable.
type loopState struct {
	r     *renderer
	sc    *scope
	n     *sFor
	items []Value // the items, those filtered so far with a condition
	src   []Value // with a condition: the items before filtering
	next  int     // the first of src not yet filtered
	pos   int
	depth int
	// changed's last arguments
	last    []Value
	hasLast bool
}

func (r *renderer) loop(sc *scope, n *sFor, it Value, depth int) error {
	items, err := r.iterate(it)
	if err != nil {
		return r.located(err, n.line)
	}
	ls := &loopState{r: r, sc: sc, n: n, depth: depth}
	if n.cond == nil {
		ls.items = items
	} else {
		ls.src = items // filtered as the loop goes, as Jinja's generator
	}
	lv := Value{k: kindLoop, p: unsafe.Pointer(ls)}
	// Jinja runs the else block unless a turn reached the end of the
	// body: a turn that breaks or continues does not count.
	completed := false
loop:
	for i := 0; ; i++ {
		if err := ls.fill(i); err != nil {
			return err
		}
		if i >= len(ls.items) {
			break
		}
		if err := r.step(); err != nil {
			return err
		}
		ls.pos = i
		inner := &scope{parent: sc}
		if err := r.assign(inner, n.target, ls.items[i], n.line); err != nil {
			return err
		}
		inner.set("loop", lv)
		switch err := r.block(inner, n.body); {
		case err == errBreak:
			break loop
		case err == errContinue:
		case err != nil:
			return err
		default:
			completed = true
		}
	}
	if !completed {
		return r.block(&scope{parent: sc}, n.els)
	}
	return nil
}

// fill filters a conditional loop's items until it holds k+1 of them or
// they end (k < 0: all of them, for loop.length).
func (ls *loopState) fill(k int) error {
	r, n := ls.r, ls.n
	for ls.next < len(ls.src) && (k < 0 || len(ls.items) <= k) {
		item := ls.src[ls.next]
		ls.next++
		if err := r.step(); err != nil {
			return err
		}
		inner := &scope{parent: ls.sc}
		if err := r.assign(inner, n.target, item, n.line); err != nil {
			return err
		}
		c, err := r.evalAt(inner, n.cond)
		if err != nil {
			return err
		}
		if c.IsTruthy() {
			ls.items = append(ls.items, item)
		}
	}
	return nil
}

// macro makes the callable of a macro (or a call block's caller) defined
// in sc.
//
// Not inlined: one closure body for every use, not one each.
//
//go:noinline
func (r *renderer) macro(sc *scope, name string, d *macroDef, line int) Value {
	return NewCallable(name, func(args []Value, kwargs map[string]Value) (Value, error) {
		order := r.kwOrder
		r.kwOrder = nil
		if !sameKeys(order, kwargs) {
			order = sortedKwargs(kwargs) // not called from a template's call
		}
		if err := r.step(); err != nil {
			return Value{}, err
		}
		max := r.o.Depth
		if max <= 0 {
			max = defaultMaxDepth
		}
		if r.depth >= max {
			return Value{}, &LimitError{Bound: BoundDepth, Max: max}
		}
		r.depth++
		defer func() { r.depth-- }()
		inner := &scope{parent: sc}
		firstDefault := len(d.params) - len(d.defaults)
		for i, p := range d.params {
			switch v, ok := kwargs[p]; {
			case i < len(args):
				if ok {
					return Value{}, typeErrorf("macro '%s' got multiple values for argument '%s'", name, p)
				}
				inner.set(p, args[i])
			case ok:
				inner.set(p, v)
			case i >= firstDefault:
				dv, err := r.eval(inner, d.defaults[i-firstDefault])
				if err != nil {
					return Value{}, err
				}
				inner.set(p, dv)
			default:
				inner.set(p, undefMsg("'"+p+"' is undefined"))
			}
		}
		var extra []Value
		if len(args) > len(d.params) {
			extra = args[len(d.params):]
		}
		inner.set("varargs", newTuple(extra...))
		kw := NewDict()
		for _, k := range order {
			if k == "caller" {
				inner.set("caller", kwargs[k])
				continue
			}
			if !contains(d.params, k) {
				kw.AsDict().Set(k, kwargs[k])
			}
		}
		inner.set("kwargs", kw)
		s, err := r.capture(inner, d.body)
		if err != nil {
			if err == errBreak || err == errContinue {
				return Value{}, runtimeErrorf("TemplateSyntaxError", "break or continue outside a loop")
			}
			return Value{}, err
		}
		return NewString(s), nil
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sameKeys reports whether order names exactly the keys of kw.
func sameKeys(order []string, kw map[string]Value) bool {
	if len(order) != len(kw) {
		return false
	}
	for _, k := range order {
		if _, ok := kw[k]; !ok {
			return false
		}
	}
	return true
}
