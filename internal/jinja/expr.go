package jinja

import (
	"sort"
	"strings"
	"unicode/utf8"
)

func undefinedName(name string) Value { return undefMsg("'" + name + "' is undefined") }

// undefinedError is the failure of using v, an undefined value, as more
// than nothing.
func undefinedError(v Value) error {
	if v.str() == "" {
		return undefinedErrorf("a value is undefined")
	}
	return undefinedErrorf("%s", v.str())
}

func (r *renderer) lookup(sc *scope, name string) Value {
	if v, ok := sc.lookup(name); ok {
		return v
	}
	if v, ok := r.vars[name]; ok {
		return v
	}
	if v, ok := globals()[name]; ok {
		return v
	}
	if name == "range" {
		return NewCallable("range", func(args []Value, _ map[string]Value) (Value, error) { return rangeOf(r, args) })
	}
	return undefinedName(name)
}

func (r *renderer) eval(sc *scope, x expr) (Value, error) {
	switch x := x.(type) {
	case *eConst:
		return x.v, nil
	case *eName:
		return r.lookup(sc, x.name), nil
	case *eAttr:
		v, err := r.eval(sc, x.x)
		if err != nil {
			return v, err
		}
		return r.getAttr(v, x.name)
	case *eItem:
		v, err := r.eval(sc, x.x)
		if err != nil {
			return v, err
		}
		k, err := r.eval(sc, x.key)
		if err != nil {
			return k, err
		}
		return r.getItem(v, k)
	case *eSlice:
		return r.evalSlice(sc, x)
	case *eCall:
		fn, err := r.eval(sc, x.fn)
		if err != nil {
			return fn, err
		}
		args, kw, err := r.evalArgs(sc, &x.callArgs, nil)
		if err != nil {
			return Value{}, err
		}
		return r.call(fn, args, kw)
	case *eFilter:
		v, err := r.eval(sc, x.x)
		if err != nil {
			return v, err
		}
		return r.applyFilter(sc, x, v)
	case *eTest:
		v, err := r.eval(sc, x.x)
		if err != nil {
			return v, err
		}
		ok, err := r.applyTest(sc, x, v)
		if err != nil {
			return Value{}, err
		}
		return NewBool(ok != x.neg), nil
	case *eUnary:
		v, err := r.eval(sc, x.x)
		if err != nil {
			return v, err
		}
		return unary(x.op, v)
	case *eBinary:
		a, err := r.eval(sc, x.a)
		if err != nil {
			return a, err
		}
		switch x.op {
		case "and":
			if !a.IsTruthy() {
				return a, nil
			}
			return r.eval(sc, x.b)
		case "or":
			if a.IsTruthy() {
				return a, nil
			}
			return r.eval(sc, x.b)
		}
		b, err := r.eval(sc, x.b)
		if err != nil {
			return b, err
		}
		return r.binary(x.op, a, b)
	case *eCompare:
		a, err := r.eval(sc, x.first)
		if err != nil {
			return a, err
		}
		for i, op := range x.ops {
			b, err := r.eval(sc, x.rest[i])
			if err != nil {
				return b, err
			}
			var work int
			ok, err := compare(op, a, b, &work)
			if e := r.work(work >> 6); e != nil {
				return Value{}, e
			}
			if err != nil || !ok {
				return NewBool(false), err
			}
			a = b
		}
		return NewBool(true), nil
	case *eCond:
		c, err := r.eval(sc, x.cond)
		if err != nil {
			return c, err
		}
		if c.IsTruthy() {
			return r.eval(sc, x.a)
		}
		if x.b == nil {
			return undefMsg("the inline if-expression evaluated to false and no else section was defined"), nil
		}
		return r.eval(sc, x.b)
	case *eList:
		if err := r.counted(len(x.items)); err != nil {
			return Value{}, err
		}
		items := make([]Value, len(x.items))
		for i, e := range x.items {
			v, err := r.eval(sc, e)
			if err != nil {
				return v, err
			}
			items[i] = v
		}
		if x.tuple {
			return newTuple(items...), nil
		}
		return NewList(items), nil
	case *eDict:
		d := NewDict()
		for i, k := range x.keys {
			kv, err := r.eval(sc, k)
			if err != nil {
				return kv, err
			}
			v, err := r.eval(sc, x.vals[i])
			if err != nil {
				return v, err
			}
			d.AsDict().setKey(kv, v)
		}
		return d, nil
	}
	return Value{}, runtimeErrorf("TemplateRuntimeError", "unknown expression")
}

// keyString is a dict key as the engine stores it.
func keyString(k Value) string { return dictKey(k) }

// evalArgs evaluates call arguments, *list and **dict spread; first, when
// given, goes before the positional ones (a filter's input).
func (r *renderer) evalArgs(sc *scope, c *callArgs, first *Value) ([]Value, map[string]Value, error) {
	var args []Value
	if first != nil {
		args = make([]Value, 0, len(c.args)+1)
		args = append(args, *first)
	}
	for _, a := range c.args {
		v, err := r.eval(sc, a)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, v)
	}
	if c.star != nil {
		v, err := r.eval(sc, c.star)
		if err != nil {
			return nil, nil, err
		}
		items, err := r.iterate(v)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, items...)
	}
	var kw map[string]Value
	var order []string
	if len(c.kwNames) > 0 || c.dstar != nil {
		kw = make(map[string]Value, len(c.kwNames))
	}
	for i, name := range c.kwNames {
		v, err := r.eval(sc, c.kwVals[i])
		if err != nil {
			return nil, nil, err
		}
		if _, dup := kw[name]; !dup {
			order = append(order, name)
		}
		kw[name] = v
	}
	if c.dstar != nil {
		v, err := r.eval(sc, c.dstar)
		if err != nil {
			return nil, nil, err
		}
		if v.k != KindDict {
			return nil, nil, typeErrorf("argument after ** must be a mapping, not %s", typeName(v))
		}
		d := v.AsDict()
		for _, k := range d.Keys {
			if _, dup := kw[k]; !dup {
				order = append(order, k)
			}
			kw[k] = d.Data[k]
		}
	}
	r.kwOrder = order
	return args, kw, nil
}

func (r *renderer) call(fn Value, args []Value, kw map[string]Value) (Value, error) {
	switch fn.k {
	case KindCallable:
		if err := r.step(); err != nil {
			return Value{}, err
		}
		return fn.AsCallable().Fn(args, kw)
	case KindUndefined:
		return Value{}, undefinedError(fn)
	case kindLoop:
		ls := (*loopState)(fn.p)
		if !ls.n.recursive {
			return Value{}, typeErrorf("'LoopContext' object is not callable")
		}
		if len(args) != 1 {
			return Value{}, typeErrorf("loop() takes one argument")
		}
		max := r.o.Depth
		if max <= 0 {
			max = defaultMaxDepth
		}
		if ls.depth+1 >= max {
			return Value{}, &LimitError{Bound: BoundDepth, Max: max}
		}
		saved := r.out
		var b strings.Builder
		r.out = &b
		err := r.loop(ls.sc, ls.n, args[0], ls.depth+1)
		r.out = saved
		return NewString(b.String()), err
	}
	return Value{}, typeErrorf("'%s' object is not callable", typeName(fn))
}

// getAttr is x.name: a method or attribute first, then an item.
func (r *renderer) getAttr(v Value, name string) (Value, error) {
	switch v.k {
	case KindUndefined:
		return Value{}, undefinedError(v)
	case KindString:
		if m, ok := r.strMethod(v, name); ok {
			if err := r.work(cost(v)); err != nil {
				return Value{}, err
			}
			return m, nil
		}
	case KindDict:
		if m, ok := r.dictMethod(v, name); ok {
			return m, nil
		}
		if x, ok := v.AsDict().Data[name]; ok {
			return x, nil
		}
	case kindNamespace:
		if x, ok := v.AsDict().Data[name]; ok {
			return x, nil
		}
	case KindList:
		if m, ok := r.listMethod(v, name); ok {
			return m, nil
		}
	case kindLoop:
		return (*loopState)(v.p).attr(name)
	}
	return undefMsg("'" + typeName(v) + " object' has no attribute '" + name + "'"), nil
}

// getItem is x[k]: an item first, then an attribute.
func (r *renderer) getItem(v, k Value) (Value, error) {
	switch v.k {
	case KindUndefined:
		return Value{}, undefinedError(v)
	case KindDict, kindNamespace:
		if x, ok := v.AsDict().Data[keyString(k)]; ok {
			return x, nil
		}
		if k.k == KindString {
			return r.getAttr(v, k.str())
		}
	case KindList:
		if v.fl&flagIter != 0 {
			return Value{}, typeErrorf("'generator' object is not subscriptable")
		}
		if k.k == KindInt || k.k == KindBool {
			items := v.AsList().Items
			i := k.int()
			if i < 0 {
				i += int64(len(items))
			}
			if i >= 0 && i < int64(len(items)) {
				return items[i], nil
			}
			return undefMsg(typeName(v) + " object has no element " + Print(k)), nil
		}
		if k.k == KindString {
			return r.getAttr(v, k.str())
		}
	case KindString:
		if k.k == KindInt || k.k == KindBool {
			if err := r.work(cost(v)); err != nil {
				return Value{}, err
			}
			i := k.int()
			s := v.str()
			n := int64(utf8.RuneCountInString(s))
			if i < 0 {
				i += n
			}
			if i >= 0 && i < n {
				if n == int64(len(s)) {
					return NewString(s[i : i+1]), nil
				}
				for j, c := range s {
					if i == 0 {
						return NewString(s[j : j+utf8.RuneLen(c)]), nil
					}
					i--
				}
			}
			return undefMsg("str object has no element " + Print(k)), nil
		}
		if k.k == KindString {
			return r.getAttr(v, k.str())
		}
	case kindLoop:
		if k.k == KindString {
			return r.getAttr(v, k.str())
		}
	}
	return undefMsg("'" + typeName(v) + " object' has no attribute '" + Print(k) + "'"), nil
}

func (r *renderer) evalSlice(sc *scope, x *eSlice) (Value, error) {
	v, err := r.eval(sc, x.x)
	if err != nil {
		return v, err
	}
	var bounds [3]*int64
	for i, e := range []expr{x.lo, x.hi, x.step} {
		if e == nil {
			continue
		}
		b, err := r.eval(sc, e)
		if err != nil {
			return b, err
		}
		switch b.k {
		case KindNone:
		case KindInt, KindBool:
			n := b.int()
			bounds[i] = &n
		default:
			return Value{}, typeErrorf("slice indices must be integers or None")
		}
	}
	var n int
	var runes []rune
	switch v.k {
	case KindUndefined:
		return Value{}, undefinedError(v)
	case KindList:
		n = len(v.AsList().Items)
	case KindString:
		if utf8.RuneCountInString(v.str()) == len(v.str()) {
			n = len(v.str())
		} else {
			runes = []rune(v.str())
			n = len(runes)
		}
	default:
		return Value{}, typeErrorf("'%s' object is not subscriptable", typeName(v))
	}
	idx, err := sliceIndices(n, bounds)
	if err != nil {
		return Value{}, err
	}
	if err := r.counted(len(idx)); err != nil {
		return Value{}, err
	}
	if v.k == KindList {
		items := v.AsList().Items
		out := make([]Value, len(idx))
		for i, j := range idx {
			out[i] = items[j]
		}
		return listOf(v.fl&flagTuple, out), nil
	}
	if runes == nil && len(idx) > 0 && idx[len(idx)-1]-idx[0] == len(idx)-1 {
		return NewString(v.str()[idx[0] : idx[0]+len(idx)]), nil
	}
	out := make([]rune, len(idx))
	for i, j := range idx {
		if runes != nil {
			out[i] = runes[j]
		} else {
			out[i] = rune(v.str()[j])
		}
	}
	return NewString(string(out)), nil
}

// sliceIndices is Python's slice(lo, hi, step).indices(n), expanded.
func sliceIndices(n int, b [3]*int64) ([]int, error) {
	step := int64(1)
	if b[2] != nil {
		step = *b[2]
	}
	if step == 0 {
		return nil, valueErrorf("slice step cannot be zero")
	}
	clamp := func(p *int64, def int64) int64 {
		if p == nil {
			return def
		}
		i := *p
		if i < 0 {
			i += int64(n)
			if i < 0 {
				if step < 0 {
					return -1
				}
				return 0
			}
		}
		if i >= int64(n) {
			if step < 0 {
				return int64(n) - 1
			}
			return int64(n)
		}
		return i
	}
	var lo, hi int64
	if step > 0 {
		lo, hi = clamp(b[0], 0), clamp(b[1], int64(n))
	} else {
		lo, hi = clamp(b[0], int64(n)-1), clamp(b[1], -1)
	}
	var out []int
	if step > 0 {
		for i := lo; i < hi; i += step {
			out = append(out, int(i))
		}
	} else {
		for i := lo; i > hi; i += step {
			out = append(out, int(i))
		}
	}
	return out, nil
}

func sortedKwargs(kw map[string]Value) []string {
	keys := make([]string, 0, len(kw))
	for k := range kw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
