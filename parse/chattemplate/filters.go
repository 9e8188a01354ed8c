package chattemplate

import (
	"errors"

	"github.com/toolcall/toolcall/internal/jinja"
)

// printed is the text {{ v }} writes.
func printed(v jinja.Value) string { return jinja.Print(v) }

type args = []jinja.Value
type kwargs = map[string]jinja.Value

// arg is positional argument i, else keyword kw, of a filter's or a
// method's arguments (a filter's input is not among them).
func arg(a args, kw kwargs, i int, name string) (jinja.Value, bool) {
	if v, ok := kw[name]; ok {
		return v, true
	}
	if i < len(a) {
		return a[i], true
	}
	return jinja.Undefined(), false
}

// intOf is v as an int when it is a number (a float clamped to what an
// int holds).
func intOf(v jinja.Value) (int, bool) {
	switch {
	case v.IsInt():
		return int(max(min(v.AsInt(), 1<<62), -1<<62)), true
	case v.IsFloat():
		return int(max(min(v.AsFloat(), 1<<62), -1<<62)), true
	case v.IsBool():
		if v.AsBool() {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// filters are toolcall's own filters, the engine's being looked up after
// them: format with Python's %, and slice; their size is checked before
// they run. (The engine sizes its own, indent, join, replace, center, …)
func filters(g *guard) map[string]jinja.Value {
	f := map[string]jinja.Value{
		"format": jinja.NewCallable("format", func(a args, kw kwargs) (jinja.Value, error) {
			if len(a) == 0 {
				return jinja.NewString(""), nil
			}
			var m jinja.Value
			if len(a) == 1 && len(kw) > 0 {
				m = jinja.NewDict()
				for _, k := range sortedKeys(kw) {
					m.AsDict().Set(k, kw[k])
				}
			}
			s, err := percentFormat(printed(a[0]), a[1:], m)
			if err != nil {
				return jinja.Undefined(), err
			}
			return jinja.NewString(s), g.size(len(s))
		}),
	}
	f["slice"] = jinja.NewCallable("slice", func(a args, kw kwargs) (jinja.Value, error) {
		v, _ := arg(a[min(1, len(a)):], kw, 0, "slices")
		n, _ := intOf(v)
		if err := g.items(n); err != nil {
			return jinja.Undefined(), err
		}
		if len(a) == 0 || !a[0].IsList() || n <= 0 {
			return jinja.Undefined(), errors.New("slice takes a list and a count")
		}
		fill, hasFill := arg(a[1:], kw, 1, "fill_with")
		return sliceList(a[0].AsList().Items, n, fill, hasFill), nil
	})
	return f
}

func sortedKeys(m kwargs) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// rangeList is range([start, ]stop[, step]) as a list of at most maxItems
// numbers.
func (g *guard) rangeList(a args, _ kwargs) (jinja.Value, error) {
	var ints []int
	for _, v := range a {
		n, ok := intOf(v)
		if !ok || v.IsFloat() {
			return jinja.Undefined(), errors.New("range takes integers: [start, ]stop[, step]")
		}
		ints = append(ints, n)
	}
	start, stop, step := 0, 0, 1
	switch len(ints) {
	case 1:
		stop = ints[0]
	case 2:
		start, stop = ints[0], ints[1]
	case 3:
		start, stop, step = ints[0], ints[1], ints[2]
	default:
		return jinja.Undefined(), errors.New("range takes integers: [start, ]stop[, step]")
	}
	if step == 0 {
		return jinja.Undefined(), errors.New("range: step cannot be 0")
	}
	n := 0
	if step > 0 && stop > start {
		n = (stop - start + step - 1) / step
	} else if step < 0 && stop < start {
		n = (start - stop - step - 1) / -step
	}
	if err := g.items(n); err != nil {
		return jinja.Undefined(), err
	}
	out := make([]jinja.Value, n)
	for i := range out {
		out[i] = jinja.NewInt(int64(start + i*step))
	}
	return jinja.NewList(out), nil
}

// filterToJSON is the engine's tojson, as transformers defines it, for
// values toolcall writes itself (the tools given as functions).
func filterToJSON(a args, kw kwargs) (jinja.Value, error) {
	f, _ := jinja.Filter("tojson")
	return f.AsCallable().Fn(a, kw)
}

// sliceList is Jinja's slice filter: items cut into n columns, the first
// ones one longer, padded with fill when given.
func sliceList(items []jinja.Value, n int, fill jinja.Value, hasFill bool) jinja.Value {
	per, extra := len(items)/n, len(items)%n
	out := make([]jinja.Value, 0, n)
	offset := 0
	for i := range n {
		start := offset + i*per
		if i < extra {
			offset++
		}
		end := offset + (i+1)*per
		col := append([]jinja.Value(nil), items[start:end]...)
		if hasFill && i >= extra && extra > 0 {
			col = append(col, fill)
		}
		out = append(out, jinja.NewList(col))
	}
	return jinja.NewList(out)
}
