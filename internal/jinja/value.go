package jinja

import (
	"math"
	"sort"
	"strconv"
	"unsafe"
)

// Kind is the type of a Value.
type Kind uint8

const (
	KindUndefined Kind = iota
	KindNone
	KindBool
	KindInt
	KindFloat
	KindString
	KindList
	KindDict
	KindCallable
	// kindNamespace is namespace(...): a dict whose attributes are set.
	kindNamespace
	// kindLoop is a for loop's loop variable.
	kindLoop
)

// Value flags: what Python type a list or string stands for.
const (
	flagSafe  uint8 = 1 << iota // a str that is markupsafe's Markup
	flagTuple                   // a list that is a tuple
	flagIter                    // a list that is a generator or iterator
	flagRange                   // a list that is a range (List.rng)
)

// Value is a template value: Python's None, bool, int, float, str, list
// (or tuple), dict, a callable, or Jinja's undefined. It is three words:
// a str's bytes (or the list, dict, callable) behind p, its length (or
// an int, or a float's bits) in n, so that a str is held without a
// box of its own and a Value copies cheaply.
type Value struct {
	p  unsafe.Pointer
	n  uint64
	k  Kind
	fl uint8
}

func (v Value) str() string {
	if v.n == 0 || v.p == nil {
		return ""
	}
	return unsafe.String((*byte)(v.p), int(v.n))
}

func (v Value) int() int64   { return int64(v.n) }
func (v Value) flt() float64 { return math.Float64frombits(v.n) }

// withStr is v holding s.
func (v Value) withStr(s string) Value {
	v.p, v.n = unsafe.Pointer(unsafe.StringData(s)), uint64(len(s))
	return v
}

// undefMsg is an undefined value that says why it is undefined.
func undefMsg(msg string) Value { return Value{}.withStr(msg) }

func listOf(fl uint8, items []Value) Value {
	return Value{k: KindList, fl: fl, p: unsafe.Pointer(&List{Items: items})}
}

// List holds a list's items.
type List struct {
	Items []Value
	// spent marks a generator already iterated: Python's is empty then.
	spent bool
	// rng is a range's start, stop and step, as it prints.
	rng [3]int64
}

// Dict is a dict: its keys in insertion order, as Python's.
type Dict struct {
	Keys []string
	Data map[string]Value
	// orig holds the keys that are not strs (1, 2.0, None), by the
	// string they are stored under.
	orig map[string]Value
}

// dictKey is the string a key is stored under: a str as it is, others
// marked with a NUL, equal numbers alike (1, 1.0 and True are one key).
func dictKey(k Value) string {
	switch k.k {
	case KindString:
		return k.str()
	case KindInt, KindBool:
		return "\x00" + strconv.FormatInt(k.int(), 10)
	case KindFloat:
		if f := k.flt(); f == math.Trunc(f) && math.Abs(f) < 1<<62 {
			return "\x00" + strconv.FormatInt(int64(f), 10)
		}
		return "\x00" + formatFloat(k.flt())
	}
	return "\x00" + k.String()
}

// setKey sets d[k] = v for a key of any type.
func (d *Dict) setKey(k, v Value) {
	key := dictKey(k)
	if k.k != KindString {
		if _, ok := d.Data[key]; !ok {
			if d.orig == nil {
				d.orig = map[string]Value{}
			}
			d.orig[key] = k
		}
	}
	d.Set(key, v)
}

// keyOf is the key stored under s, as the template gave it.
func (d *Dict) keyOf(s string) Value {
	if k, ok := d.orig[s]; ok {
		return k
	}
	return NewString(s)
}

// Callable is a function a template calls: a global, a filter, a method.
// args are positional, kwargs by name.
type Callable struct {
	Name string
	Fn   func(args []Value, kwargs map[string]Value) (Value, error)
}

func Undefined() Value            { return Value{} }
func None() Value                 { return Value{k: KindNone} }
func NewInt(n int64) Value        { return Value{k: KindInt, n: uint64(n)} }
func NewFloat(f float64) Value    { return Value{k: KindFloat, n: math.Float64bits(f)} }
func NewString(s string) Value    { return Value{k: KindString}.withStr(s) }
func NewList(items []Value) Value { return listOf(0, items) }

func NewBool(b bool) Value {
	v := Value{k: KindBool}
	if b {
		v.n = 1
	}
	return v
}

// NewDict returns an empty dict.
func NewDict() Value {
	return Value{k: KindDict, p: unsafe.Pointer(&Dict{Data: map[string]Value{}})}
}

// NewCallable returns a function value.
func NewCallable(name string, fn func(args []Value, kwargs map[string]Value) (Value, error)) Value {
	return Value{k: KindCallable, p: unsafe.Pointer(&Callable{Name: name, Fn: fn})}
}

func newTuple(items ...Value) Value { return listOf(flagTuple, items) }
func newIter(items []Value) Value   { return listOf(flagIter, items) }
func safeString(s string) Value     { return Value{k: KindString, fl: flagSafe}.withStr(s) }

func (v Value) Kind() Kind            { return v.k }
func (v Value) IsUndefined() bool     { return v.k == KindUndefined }
func (v Value) IsNone() bool          { return v.k == KindNone }
func (v Value) IsBool() bool          { return v.k == KindBool }
func (v Value) IsInt() bool           { return v.k == KindInt }
func (v Value) IsFloat() bool         { return v.k == KindFloat }
func (v Value) IsNumber() bool        { return v.k == KindInt || v.k == KindFloat }
func (v Value) IsString() bool        { return v.k == KindString }
func (v Value) IsList() bool          { return v.k == KindList }
func (v Value) IsDict() bool          { return v.k == KindDict }
func (v Value) IsCallable() bool      { return v.k == KindCallable }
func (v Value) AsBool() bool          { return v.n != 0 }
func (v Value) AsInt() int64          { return int64(v.n) }
func (v Value) AsFloat() float64      { return v.flt() }
func (v Value) AsString() string      { return v.str() }
func (v Value) AsList() *List         { return (*List)(v.p) }
func (v Value) AsDict() *Dict         { return (*Dict)(v.p) }
func (v Value) AsCallable() *Callable { return (*Callable)(v.p) }

// IsTruthy is Python's bool(v).
func (v Value) IsTruthy() bool {
	switch v.k {
	case KindBool, KindInt:
		return v.n != 0
	case KindFloat:
		return v.flt() != 0
	case KindString:
		return v.n != 0
	case KindList:
		return len(v.AsList().Items) > 0 || v.fl&flagIter != 0
	case KindDict, kindNamespace:
		return len(v.AsDict().Keys) > 0 || v.k == kindNamespace
	case KindCallable, kindLoop:
		return true
	}
	return false
}

// Len is the list's length.
func (l *List) Len() int { return len(l.Items) }

// Get is item i.
func (l *List) Get(i int) Value { return l.Items[i] }

// Append adds v at the end.
func (l *List) Append(v Value) { l.Items = append(l.Items, v) }

// Get returns key's value and whether the dict holds it.
func (d *Dict) Get(key string) (Value, bool) {
	v, ok := d.Data[key]
	return v, ok
}

// Has reports whether the dict holds key.
func (d *Dict) Has(key string) bool { _, ok := d.Data[key]; return ok }

// Len is the number of keys.
func (d *Dict) Len() int { return len(d.Keys) }

// OrderedKeys is a copy of the keys in insertion order.
func (d *Dict) OrderedKeys() []string { return append([]string(nil), d.Keys...) }

// Set sets key, a new key going last.
func (d *Dict) Set(key string, v Value) {
	if _, ok := d.Data[key]; !ok {
		d.Keys = append(d.Keys, key)
	}
	d.Data[key] = v
}

func (d *Dict) delete(key string) {
	if _, ok := d.Data[key]; !ok {
		return
	}
	delete(d.Data, key)
	for i, k := range d.Keys {
		if k == key {
			d.Keys = append(d.Keys[:i:i], d.Keys[i+1:]...)
			break
		}
	}
}

// FromGoValue converts nil, bool, int, int64, float64, string, []any,
// []Value and map[string]any (keys sorted) to a Value; other types are
// undefined.
func FromGoValue(x any) Value {
	switch t := x.(type) {
	case nil:
		return None()
	case Value:
		return t
	case bool:
		return NewBool(t)
	case int:
		return NewInt(int64(t))
	case int64:
		return NewInt(t)
	case float64:
		return NewFloat(t)
	case string:
		return NewString(t)
	case []Value:
		return NewList(t)
	case []any:
		items := make([]Value, len(t))
		for i, e := range t {
			items[i] = FromGoValue(e)
		}
		return NewList(items)
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d := NewDict()
		for _, k := range keys {
			d.AsDict().Set(k, FromGoValue(t[k]))
		}
		return d
	}
	return Undefined()
}

// typeName is the Python type name of v, as Python's messages give it.
func typeName(v Value) string {
	switch v.k {
	case KindUndefined:
		return "Undefined"
	case KindNone:
		return "NoneType"
	case KindBool:
		return "bool"
	case KindInt:
		return "int"
	case KindFloat:
		return "float"
	case KindString:
		if v.fl&flagSafe != 0 {
			return "Markup"
		}
		return "str"
	case KindList:
		switch {
		case v.fl&flagTuple != 0:
			return "tuple"
		case v.fl&flagIter != 0:
			return "generator"
		case v.fl&flagRange != 0:
			return "range"
		}
		return "list"
	case KindDict:
		return "dict"
	case kindNamespace:
		return "Namespace"
	case kindLoop:
		return "LoopContext"
	}
	return "function"
}
