package jinja

import (
	"strings"
	"unicode/utf8"
)

// The methods of Python's str, dict and list that templates call, and
// the loop variable's attributes. A method that grows a value sizes it
// first; the ones that change a list or dict in place are allowed (the
// value is the template's own).

type method func(args []Value, kw map[string]Value) (Value, error)

func bound(name string, m method) (Value, bool) { return NewCallable(name, m), true }

func (r *renderer) strMethod(v Value, name string) (Value, bool) {
	s := v.str()
	if m, ok := r.pyStrMethod(s, name); ok {
		return m, true
	}
	switch name {
	case "upper", "lower", "capitalize":
		f := strings.ToUpper
		switch name {
		case "lower":
			f = strings.ToLower
		case "capitalize":
			f = capitalize
		}
		return bound(name, func([]Value, map[string]Value) (Value, error) { return NewString(f(s)), nil })
	case "strip", "lstrip", "rstrip":
		side := map[string]int{"strip": 3, "lstrip": 1, "rstrip": 2}[name]
		return bound(name, func(a []Value, kw map[string]Value) (Value, error) {
			return NewString(strip(s, arg(a, kw, 0, "chars", None()), side)), nil
		})
	case "replace":
		return bound(name, func(a []Value, kw map[string]Value) (Value, error) {
			return fReplace(r, v, a, kw)
		})
	case "find", "index", "count":
		return bound(name, func(a []Value, _ map[string]Value) (Value, error) {
			if len(a) == 0 || a[0].k != KindString {
				return Value{}, typeErrorf("%s takes a str", name)
			}
			sub := a[0].str()
			switch name {
			case "count":
				return NewInt(int64(strings.Count(s, sub))), nil
			}
			i := strings.Index(s, sub)
			if i < 0 && name == "index" {
				return Value{}, valueErrorf("substring not found")
			}
			if i > 0 {
				i = utf8.RuneCountInString(s[:i])
			}
			return NewInt(int64(i)), nil
		})
	case "join":
		return bound(name, func(a []Value, _ map[string]Value) (Value, error) {
			if len(a) == 0 {
				return Value{}, typeErrorf("join takes an iterable")
			}
			return fJoin(r, a[0], []Value{NewString(s)}, nil)
		})
	case "ljust", "rjust", "center":
		return bound(name, func(a []Value, kw map[string]Value) (Value, error) {
			w := arg(a, kw, 0, "width", NewInt(0))
			fill := Print(arg(a, kw, 1, "fillchar", NewString(" ")))
			if utf8.RuneCountInString(fill) != 1 {
				return Value{}, typeErrorf("The fill character must be exactly one character long")
			}
			return pad(r, s, int(w.int()), fill, name[0])
		})
	}
	return Value{}, false
}

func (r *renderer) dictMethod(v Value, name string) (Value, bool) {
	d := v.AsDict()
	switch name {
	case "items":
		return bound(name, func([]Value, map[string]Value) (Value, error) { return NewList(dictItems(d)), nil })
	case "keys":
		return bound(name, func([]Value, map[string]Value) (Value, error) {
			out := make([]Value, len(d.Keys))
			for i, k := range d.Keys {
				out[i] = d.keyOf(k)
			}
			return NewList(out), nil
		})
	case "values":
		return bound(name, func([]Value, map[string]Value) (Value, error) {
			out := make([]Value, len(d.Keys))
			for i, k := range d.Keys {
				out[i] = d.Data[k]
			}
			return NewList(out), nil
		})
	case "get":
		return bound(name, func(a []Value, kw map[string]Value) (Value, error) {
			if len(a) == 0 {
				return Value{}, typeErrorf("get expected at least 1 argument, got 0")
			}
			if x, ok := d.Data[keyString(a[0])]; ok {
				return x, nil
			}
			return arg(a, kw, 1, "default", None()), nil
		})
	case "pop":
		return bound(name, func(a []Value, _ map[string]Value) (Value, error) {
			if len(a) == 0 {
				return Value{}, typeErrorf("pop expected at least 1 argument, got 0")
			}
			k := keyString(a[0])
			if x, ok := d.Data[k]; ok {
				d.delete(k)
				return x, nil
			}
			if len(a) > 1 {
				return a[1], nil
			}
			return Value{}, runtimeErrorf("KeyError", "%s", a[0].String())
		})
	case "setdefault":
		return bound(name, func(a []Value, _ map[string]Value) (Value, error) {
			if len(a) == 0 {
				return Value{}, typeErrorf("setdefault expected at least 1 argument, got 0")
			}
			k := keyString(a[0])
			if x, ok := d.Data[k]; ok {
				return x, nil
			}
			def := None()
			if len(a) > 1 {
				def = a[1]
			}
			d.Set(k, def)
			return def, nil
		})
	case "update":
		return bound(name, func(a []Value, kw map[string]Value) (Value, error) {
			for _, x := range a {
				if x.k == KindDict {
					for _, k := range x.AsDict().Keys {
						d.Set(k, x.AsDict().Data[k])
					}
				}
			}
			for _, k := range sortedKwargs(kw) {
				d.Set(k, kw[k])
			}
			return None(), r.counted(len(d.Keys))
		})
	case "copy":
		return bound(name, func([]Value, map[string]Value) (Value, error) {
			c := NewDict()
			for _, k := range d.Keys {
				c.AsDict().Set(k, d.Data[k])
			}
			return c, nil
		})
	}
	return Value{}, false
}

func (r *renderer) listMethod(v Value, name string) (Value, bool) {
	l := v.AsList()
	switch name {
	case "append":
		return bound(name, func(a []Value, _ map[string]Value) (Value, error) {
			if len(a) != 1 {
				return Value{}, typeErrorf("list.append() takes exactly one argument (%d given)", len(a))
			}
			if err := r.counted(len(l.Items) + 1); err != nil {
				return Value{}, err
			}
			l.Items = append(l.Items, a[0])
			return None(), nil
		})
	case "extend":
		return bound(name, func(a []Value, _ map[string]Value) (Value, error) {
			if len(a) != 1 {
				return Value{}, typeErrorf("list.extend() takes exactly one argument (%d given)", len(a))
			}
			items, err := r.iterate(a[0])
			if err != nil {
				return Value{}, err
			}
			if err := r.counted(len(l.Items) + len(items)); err != nil {
				return Value{}, err
			}
			l.Items = append(l.Items, items...)
			return None(), nil
		})
	case "pop":
		return bound(name, func(a []Value, _ map[string]Value) (Value, error) {
			i := int64(len(l.Items) - 1)
			if len(a) > 0 {
				i = a[0].int()
				if i < 0 {
					i += int64(len(l.Items))
				}
			}
			if i < 0 || i >= int64(len(l.Items)) {
				return Value{}, runtimeErrorf("IndexError", "pop index out of range")
			}
			x := l.Items[i]
			l.Items = append(l.Items[:i:i], l.Items[i+1:]...)
			return x, nil
		})
	case "insert":
		return bound(name, func(a []Value, _ map[string]Value) (Value, error) {
			if len(a) != 2 || !isIntLike(a[0]) {
				return Value{}, typeErrorf("insert expected 2 arguments")
			}
			if err := r.counted(len(l.Items) + 1); err != nil {
				return Value{}, err
			}
			i := a[0].int()
			if i < 0 {
				i = max(i+int64(len(l.Items)), 0)
			}
			i = min(i, int64(len(l.Items)))
			l.Items = append(l.Items[:i], append([]Value{a[1]}, l.Items[i:]...)...)
			return None(), nil
		})
	case "index", "count":
		return bound(name, func(a []Value, _ map[string]Value) (Value, error) {
			if len(a) == 0 {
				return Value{}, typeErrorf("%s takes a value", name)
			}
			n := 0
			for i, x := range l.Items {
				if equal(x, a[0], 0, nil) {
					if name == "index" {
						return NewInt(int64(i)), nil
					}
					n++
				}
			}
			if name == "index" {
				return Value{}, valueErrorf("%s is not in list", a[0].String())
			}
			return NewInt(int64(n)), nil
		})
	case "copy":
		return bound(name, func([]Value, map[string]Value) (Value, error) {
			return NewList(append([]Value(nil), l.Items...)), nil
		})
	}
	return Value{}, false
}

func (ls *loopState) attr(name string) (Value, error) {
	switch name {
	case "length", "revindex", "revindex0":
		if err := ls.fill(-1); err != nil {
			return Value{}, err
		}
	case "last", "nextitem":
		if err := ls.fill(ls.pos + 1); err != nil {
			return Value{}, err
		}
	}
	n := len(ls.items)
	switch name {
	case "index":
		return NewInt(int64(ls.pos + 1)), nil
	case "index0":
		return NewInt(int64(ls.pos)), nil
	case "revindex":
		return NewInt(int64(n - ls.pos)), nil
	case "revindex0":
		return NewInt(int64(n - ls.pos - 1)), nil
	case "first":
		return NewBool(ls.pos == 0), nil
	case "last":
		return NewBool(ls.pos == n-1 && ls.next == len(ls.src)), nil
	case "length":
		return NewInt(int64(n)), nil
	case "depth":
		return NewInt(int64(ls.depth + 1)), nil
	case "depth0":
		return NewInt(int64(ls.depth)), nil
	case "previtem":
		if ls.pos == 0 {
			return undefMsg("there is no previous item"), nil
		}
		return ls.items[ls.pos-1], nil
	case "nextitem":
		if ls.pos >= n-1 {
			return undefMsg("there is no next item"), nil
		}
		return ls.items[ls.pos+1], nil
	case "cycle":
		return NewCallable("cycle", func(a []Value, _ map[string]Value) (Value, error) {
			if len(a) == 0 {
				return Value{}, typeErrorf("no items for cycling given")
			}
			return a[ls.pos%len(a)], nil
		}), nil
	case "changed":
		return NewCallable("changed", func(a []Value, _ map[string]Value) (Value, error) {
			l := newTuple(a...)
			if ls.hasLast && equal(l, newTuple(ls.last...), 0, nil) {
				return NewBool(false), nil
			}
			ls.last, ls.hasLast = a, true
			return NewBool(true), nil
		}), nil
	}
	return undefMsg("'LoopContext object' has no attribute '" + name + "'"), nil
}
