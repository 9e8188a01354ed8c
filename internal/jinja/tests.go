package jinja

import (
	"strings"
	"sync"
	"unicode"
	"unsafe"
)

// testFn is a test: x is name(args).
type testFn func(r *renderer, v Value, args []Value) (bool, error)

func (r *renderer) applyTest(sc *scope, t *eTest, v Value) (bool, error) {
	fn, ok := tests()[t.name]
	if !ok {
		return false, runtimeErrorf("TemplateAssertionError", "no test named '%s'", t.name)
	}
	args, _, err := r.evalArgs(sc, &t.callArgs, nil)
	if err != nil {
		return false, err
	}
	return fn(r, v, args)
}

// Not inlined: one closure body for every use, not one each.
//
//go:noinline
func kindTest(f func(v Value) bool) testFn {
	return func(_ *renderer, v Value, _ []Value) (bool, error) { return f(v), nil }
}

// Not inlined: one closure body for every use, not one each.
//
//go:noinline
func cmpTest(op string) testFn {
	return func(r *renderer, v Value, args []Value) (bool, error) {
		if len(args) == 0 {
			return false, typeErrorf("the test takes a value to compare with")
		}
		var work int
		ok, err := compare(op, v, args[0], &work)
		if e := r.work(work >> 6); e != nil {
			return false, e
		}
		return ok, err
	}
}

// tests are the engine's tests, built on first use, as the filters are.
func tests() map[string]testFn {
	testsOnce.Do(loadTests)
	return testTable
}

var (
	testTable map[string]testFn
	testsOnce sync.Once
)

func loadTests() {
	testTable = map[string]testFn{
		"defined":   kindTest(func(v Value) bool { return v.k != KindUndefined }),
		"undefined": kindTest(func(v Value) bool { return v.k == KindUndefined }),
		"none":      kindTest(func(v Value) bool { return v.k == KindNone }),
		"boolean":   kindTest(func(v Value) bool { return v.k == KindBool }),
		"true":      kindTest(func(v Value) bool { return v.k == KindBool && v.int() != 0 }),
		"false":     kindTest(func(v Value) bool { return v.k == KindBool && v.int() == 0 }),
		"integer":   kindTest(func(v Value) bool { return v.k == KindInt }),
		"float":     kindTest(func(v Value) bool { return v.k == KindFloat }),
		"number":    kindTest(isNum),
		"string":    kindTest(func(v Value) bool { return v.k == KindString }),
		"mapping":   kindTest(func(v Value) bool { return v.k == KindDict }),
		"iterable": kindTest(func(v Value) bool {
			return v.k == KindString || v.k == KindList || v.k == KindDict || v.k == KindUndefined
		}),
		"sequence": kindTest(func(v Value) bool {
			return v.k == KindString || v.k == KindList && v.fl&flagIter == 0 || v.k == KindDict || v.k == KindUndefined
		}),
		"callable": kindTest(func(v Value) bool { return v.k == KindCallable || v.k == kindLoop && (*loopState)(v.p).n.recursive }),
		"escaped":  kindTest(func(v Value) bool { return v.k == KindString && v.fl&flagSafe != 0 }),
		// Python's tests on str(value), and on value % 2 (a float too).
		"lower": kindTest(func(v Value) bool {
			p := Print(v)
			return strings.IndexFunc(p, unicode.IsLower) >= 0 && strings.IndexFunc(p, unicode.IsUpper) < 0
		}),
		"upper": kindTest(func(v Value) bool {
			p := Print(v)
			return strings.IndexFunc(p, unicode.IsUpper) >= 0 && strings.IndexFunc(p, unicode.IsLower) < 0
		}),
		"odd": func(r *renderer, v Value, _ []Value) (bool, error) {
			m, err := r.binary("%", v, NewInt(2))
			return err == nil && equal(m, NewInt(1), 0, nil), err
		},
		"even": func(r *renderer, v Value, _ []Value) (bool, error) {
			m, err := r.binary("%", v, NewInt(2))
			return err == nil && equal(m, NewInt(0), 0, nil), err
		},
		"divisibleby": func(r *renderer, v Value, args []Value) (bool, error) {
			if len(args) == 0 {
				return false, typeErrorf("divisibleby takes a number")
			}
			m, err := r.binary("%", v, args[0])
			if err != nil {
				return false, err
			}
			return equal(m, NewInt(0), 0, nil), nil
		},
		"sameas": func(_ *renderer, v Value, args []Value) (bool, error) {
			if len(args) == 0 {
				return false, typeErrorf("sameas takes a value")
			}
			w := args[0]
			if v.k != w.k {
				return false, nil
			}
			switch v.k {
			case KindList, KindDict, KindCallable, kindNamespace, kindLoop:
				return v.p == w.p, nil
			}
			return equal(v, w, 0, nil), nil
		},
		"in": func(r *renderer, v Value, args []Value) (bool, error) {
			if len(args) == 0 {
				return false, typeErrorf("in takes a container")
			}
			var work int
			ok, err := contains3(args[0], v, &work)
			if e := r.work(work >> 6); e != nil {
				return false, e
			}
			return ok, err
		},
		"eq": cmpTest("=="), "equalto": cmpTest("=="), "==": cmpTest("=="),
		"ne": cmpTest("!="), "!=": cmpTest("!="),
		"lt": cmpTest("<"), "lessthan": cmpTest("<"), "<": cmpTest("<"),
		"le": cmpTest("<="), "<=": cmpTest("<="),
		"gt": cmpTest(">"), "greaterthan": cmpTest(">"), ">": cmpTest(">"),
		"ge": cmpTest(">="), ">=": cmpTest(">="),
		"filter": func(r *renderer, v Value, _ []Value) (bool, error) {
			_, ok := r.filter(Print(v))
			return ok, nil
		},
		"test": func(_ *renderer, v Value, _ []Value) (bool, error) {
			_, ok := tests()[Print(v)]
			return ok, nil
		},
	}
}

// globals are the engine's own global functions, built on first use.
var globals = sync.OnceValue(func() map[string]Value {
	return map[string]Value{
		"namespace": NewCallable("namespace", func(args []Value, kw map[string]Value) (Value, error) {
			d := &Dict{Data: map[string]Value{}}
			for _, a := range args {
				if a.k == KindDict {
					for _, k := range a.AsDict().Keys {
						d.Set(k, a.AsDict().Data[k])
					}
				}
			}
			for _, k := range sortedKwargs(kw) {
				d.Set(k, kw[k])
			}
			return Value{k: kindNamespace, p: unsafe.Pointer(d)}, nil
		}),
		"dict": NewCallable("dict", func(args []Value, kw map[string]Value) (Value, error) {
			d := NewDict()
			for _, a := range args {
				if a.k == KindDict {
					for _, k := range a.AsDict().Keys {
						d.AsDict().Set(k, a.AsDict().Data[k])
					}
				}
			}
			for _, k := range sortedKwargs(kw) {
				d.AsDict().Set(k, kw[k])
			}
			return d, nil
		}),
	}
})

// rangeOf is range([start, ]stop[, step]) as a list, sized first.
func rangeOf(r *renderer, args []Value) (Value, error) {
	var n [3]int64
	for i, a := range args {
		if !isIntLike(a) || i > 2 {
			return Value{}, typeErrorf("range takes integers: [start, ]stop[, step]")
		}
		n[i] = a.int()
	}
	start, stop, step := int64(0), int64(0), int64(1)
	switch len(args) {
	case 1:
		stop = n[0]
	case 2:
		start, stop = n[0], n[1]
	case 3:
		start, stop, step = n[0], n[1], n[2]
	default:
		return Value{}, typeErrorf("range takes integers: [start, ]stop[, step]")
	}
	if step == 0 {
		return Value{}, valueErrorf("range() arg 3 must not be zero")
	}
	count := int64(0)
	if step > 0 && stop > start {
		count = (stop - start + step - 1) / step
	} else if step < 0 && stop < start {
		count = (start - stop - step - 1) / -step
	}
	if count > 1<<40 {
		count = -1
	}
	if err := r.counted(int(count)); err != nil {
		return Value{}, err
	}
	if r == nil && count > 1<<24 {
		return Value{}, &LimitError{Bound: BoundItems, Max: 1 << 24}
	}
	out := make([]Value, count)
	for i := range out {
		out[i] = NewInt(start + int64(i)*step)
	}
	v := listOf(flagRange, out)
	v.AsList().rng = [3]int64{start, stop, step}
	return v, nil
}
