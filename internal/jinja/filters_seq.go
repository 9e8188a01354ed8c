package jinja

import (
	"sort"
	"strings"
)

// The filters over sequences: sorting, selecting, mapping, cutting.

func fItems(_ *renderer, in Value, _ []Value, _ map[string]Value) (Value, error) {
	switch in.k {
	case KindUndefined:
		return newIter(nil), nil
	case KindDict:
		return newIter(dictItems(in.AsDict())), nil
	}
	return Value{}, typeErrorf("can only get item pairs from a mapping")
}

func dictItems(d *Dict) []Value {
	out := make([]Value, len(d.Keys))
	for i, k := range d.Keys {
		out[i] = newTuple(d.keyOf(k), d.Data[k])
	}
	return out
}

func sortKey(v Value, caseSensitive bool) Value {
	if v.k == KindString && !caseSensitive {
		return NewString(strings.ToLower(v.str()))
	}
	return v
}

func (r *renderer) sortValues(items []Value, key func(Value) Value, reverse bool) error {
	var err error
	work := 0
	sort.SliceStable(items, func(i, j int) bool {
		a, b := key(items[i]), key(items[j])
		if reverse {
			a, b = b, a
		}
		c, e := order(a, b, "<", 0, &work)
		if e != nil && err == nil {
			err = e
		}
		return c < 0
	})
	if e := r.work(work >> 6); e != nil {
		return e
	}
	return err
}

func fDictsort(r *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
	if in.k != KindDict {
		return Value{}, typeErrorf("dictsort: a dict is needed, not %s", typeName(in))
	}
	cs := arg(args, kw, 0, "case_sensitive", NewBool(false)).IsTruthy()
	by := Print(arg(args, kw, 1, "by", NewString("key")))
	rev := arg(args, kw, 2, "reverse", NewBool(false)).IsTruthy()
	pos := 0
	if by == "value" {
		pos = 1
	}
	items := dictItems(in.AsDict())
	err := r.sortValues(items, func(v Value) Value { return sortKey(v.AsList().Items[pos], cs) }, rev)
	return NewList(items), err
}

func fMap(r *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
	if !in.IsTruthy() {
		return newIter(nil), nil // as Jinja's map
	}
	items, err := r.iterate(in)
	if err != nil {
		return Value{}, err
	}
	out := make([]Value, 0, len(items))
	if a, ok := kw["attribute"]; ok {
		def, hasDef := kw["default"]
		for _, it := range items {
			v, err := r.getItemPath(it, a)
			if err != nil {
				return Value{}, err
			}
			if v.k == KindUndefined && hasDef {
				v = def
			}
			out = append(out, v)
		}
		return newIter(out), nil
	}
	if len(args) == 0 {
		return Value{}, typeErrorf("map takes a filter name or attribute=")
	}
	fn, ok := r.filter(Print(args[0]))
	if !ok {
		return Value{}, runtimeErrorf("TemplateRuntimeError", "no filter named '%s'", Print(args[0]))
	}
	for _, it := range items {
		if err := r.step(); err != nil {
			return Value{}, err
		}
		v, err := fn(it, args[1:], kw)
		if err != nil {
			return Value{}, err
		}
		out = append(out, v)
	}
	return newIter(out), nil
}

func selectFilter(reject, byAttr bool) filterFn {
	return func(r *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
		if !in.IsTruthy() {
			return newIter(nil), nil // Jinja's select looks at a falsy value no further
		}
		items, err := r.iterate(in)
		if err != nil {
			return Value{}, err
		}
		var attr Value
		if byAttr {
			if len(args) == 0 {
				return Value{}, typeErrorf("selectattr takes an attribute")
			}
			attr, args = args[0], args[1:]
		}
		var test testFn
		if len(args) > 0 {
			name := Print(args[0])
			t, ok := tests()[name]
			if !ok {
				return Value{}, runtimeErrorf("TemplateRuntimeError", "no test named '%s'", name)
			}
			test, args = t, args[1:]
		}
		var out []Value
		for _, it := range items {
			if err := r.step(); err != nil {
				return Value{}, err
			}
			v := it
			if byAttr {
				if v, err = r.getItemPath(it, attr); err != nil {
					return Value{}, err
				}
			}
			ok := v.IsTruthy()
			if test != nil {
				if ok, err = test(r, v, args); err != nil {
					return Value{}, err
				}
			}
			if ok != reject {
				out = append(out, it)
			}
		}
		return newIter(out), nil
	}
}

func fUnique(r *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
	cs := arg(args, kw, 0, "case_sensitive", NewBool(false)).IsTruthy()
	attr := arg(args, kw, 1, "attribute", None())
	items, err := r.iterate(in)
	if err != nil {
		return Value{}, err
	}
	var out, keys []Value
	seen := map[string]bool{}
	work := 0
	for _, it := range items {
		k := it
		if attr.k != KindNone {
			if k, err = r.getItemPath(it, attr); err != nil {
				return Value{}, err
			}
		}
		k = sortKey(k, cs)
		// A str or number is found by its key at once; other values
		// are compared with those seen, each comparison counted.
		if k.k != KindList && k.k != KindDict && k.k != kindNamespace && k.k != KindCallable {
			key := dictKey(k)
			if _, dup := seen[key]; !dup {
				seen[key] = true
				out = append(out, it)
			}
			continue
		}
		if k.k != KindCallable {
			return Value{}, typeErrorf("unhashable type: '%s'", typeName(k))
		}
		dup := false
		for _, s := range keys {
			if equal(s, k, 0, &work) {
				dup = true
				break
			}
		}
		if err := r.work(work >> 6); err != nil {
			return Value{}, err
		}
		work &= 63
		if !dup {
			keys = append(keys, k)
			out = append(out, it)
		}
	}
	return newIter(out), nil
}

func fSort(r *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
	rev := arg(args, kw, 0, "reverse", NewBool(false)).IsTruthy()
	cs := arg(args, kw, 1, "case_sensitive", NewBool(false)).IsTruthy()
	attr := arg(args, kw, 2, "attribute", None())
	items, err := r.iterate(in)
	if err != nil {
		return Value{}, err
	}
	items = append([]Value(nil), items...)
	var ferr error
	err = r.sortValues(items, func(v Value) Value {
		if attr.k != KindNone {
			x, e := r.getItemPath(v, attr)
			if e != nil && ferr == nil {
				ferr = e
			}
			v = x
		}
		return sortKey(v, cs)
	}, rev)
	if ferr != nil {
		err = ferr
	}
	return NewList(items), err
}

func fReverse(r *renderer, in Value, _ []Value, _ map[string]Value) (Value, error) {
	if in.k == KindString {
		rs := []rune(in.str())
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return NewString(string(rs)), nil
	}
	items, err := r.iterate(in)
	if err != nil {
		return Value{}, err
	}
	out := make([]Value, len(items))
	for i, it := range items {
		out[len(items)-1-i] = it
	}
	return newIter(out), nil
}

func fSum(r *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
	attr := arg(args, kw, 0, "attribute", None())
	total := arg(args, kw, 1, "start", NewInt(0))
	items, err := r.iterate(in)
	if err != nil {
		return Value{}, err
	}
	for _, it := range items {
		if attr.k != KindNone {
			if it, err = r.getItemPath(it, attr); err != nil {
				return Value{}, err
			}
		}
		if total, err = r.binary("+", total, it); err != nil {
			return Value{}, err
		}
	}
	return total, nil
}

func minMax(sign int) filterFn {
	return func(r *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
		cs := arg(args, kw, 0, "case_sensitive", NewBool(false)).IsTruthy()
		items, err := r.iterate(in)
		if err != nil {
			return Value{}, err
		}
		if len(items) == 0 {
			return undefMsg("No aggregated item, sequence was empty."), nil
		}
		best := items[0]
		work := 0
		for _, it := range items[1:] {
			c, err := order(sortKey(it, cs), sortKey(best, cs), "<", 0, &work)
			if err != nil {
				return Value{}, err
			}
			if c*sign > 0 {
				best = it
			}
		}
		if err := r.work(work >> 6); err != nil {
			return Value{}, err
		}
		return best, nil
	}
}

func fBatch(r *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
	n := arg(args, kw, 0, "linecount", NewInt(1))
	fill := arg(args, kw, 1, "fill_with", None())
	if !isIntLike(n) || n.int() <= 0 {
		return Value{}, valueErrorf("batch takes a positive count")
	}
	if err := r.counted(int(min(n.int(), 1<<40))); err != nil {
		return Value{}, err
	}
	items, err := r.iterate(in)
	if err != nil {
		return Value{}, err
	}
	var out []Value
	for i := 0; i < len(items); i += int(n.int()) {
		end := min(i+int(n.int()), len(items))
		row := append([]Value(nil), items[i:end]...)
		if fill.k != KindNone {
			for len(row) < int(n.int()) {
				row = append(row, fill)
			}
		}
		out = append(out, NewList(row))
	}
	return newIter(out), nil
}

func fSlice(r *renderer, in Value, args []Value, kw map[string]Value) (Value, error) {
	v, _ := argOK(args, kw, 0, "slices")
	n, _ := intOf(v)
	if err := r.counted(n); err != nil {
		return Value{}, err
	}
	items, err := r.iterate(in)
	if err != nil {
		return Value{}, err
	}
	if n <= 0 {
		return Value{}, valueErrorf("slice takes a positive count")
	}
	fill, hasFill := argOK(args, kw, 1, "fill_with")
	per, extra := len(items)/n, len(items)%n
	out := make([]Value, 0, n)
	offset := 0
	for i := range n {
		start := offset + i*per
		if i < extra {
			offset++
		}
		end := offset + (i+1)*per
		col := append([]Value(nil), items[start:end]...)
		if hasFill && i >= extra && extra > 0 {
			col = append(col, fill)
		}
		out = append(out, NewList(col))
	}
	return newIter(out), nil
}
