package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/internal/editdist"
	"github.com/toolcall/toolcall/internal/jsonptr"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/internal/phrase"
)

// Cut lengths for values quoted in errors: enough to show an enum or a
// pattern whole, and to recognise a value, without pasting a document back.
const (
	maxExpectedLen = 400
	maxGotLen      = 80
)

// Bounds on explaining one failed validation, which the schema, not the
// model, makes large: a chain of alternatives that refer to each other
// fails in a tree of 3^L errors, and quoting up to three branches at every
// level made a message of 3^L bytes (4 MB at L = 10). At most
// maxErrorNodes nodes of the validator's tree are read, a quoted branch is
// cut to maxQuotedLen bytes, and the model gets the first maxShownErrors
// errors and the count of the rest (keyword "more"), which is what it can
// act on in one turn anyway.
const (
	maxErrorNodes  = 4096
	maxQuotedLen   = 240
	maxShownErrors = 12
)

// errorBudget is what is left of maxErrorNodes, shared by a builder and
// the builders it makes for alternatives.
type errorBudget struct {
	nodes   int
	skipped bool // nodes were left unread: the errors shown are not all
}

// compactJSON is raw JSON without whitespace, cut to n bytes.
func compactJSON(raw string, n int) string {
	if raw == "" {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(raw)); err != nil {
		return clip.Head(raw, n)
	}
	return clip.Head(b.String(), n)
}

// errorBuilder turns the validator's error tree into SchemaErrors: one per
// failing leaf, each with the schema's expectation and the value found,
// both looked up in the documents themselves.
type errorBuilder struct {
	schema []byte // the input schema as written
	base   string // its address, as in the validator's locations
	args   []byte // the compact arguments that were checked
	out    []Error
	// The compiled schema and the decoded arguments, to count what a
	// subschema accepts (contains, oneOf) rather than read the count
	// out of the validator's message.
	compiled *jsonschema.Schema
	value    any
	budget   *errorBudget // made by the first collect
	// steps is the call's validation budget, which the checks made to
	// explain the failure (contains, oneOf) take their steps from.
	steps *validationBudget
}

// builder is an errorBuilder for the value v, whose compact text is args,
// taking its checks' steps from steps.
func (s *Schema) builder(args []byte, v any, steps *validationBudget) errorBuilder {
	return errorBuilder{schema: s.text, base: s.base, args: args, compiled: s.compiled, value: v, steps: steps}
}

func (b *errorBuilder) add(err error) {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		// A panic or a loop inside the validator: fail closed.
		b.out = append(b.out, Error{
			Keyword: "schema",
			Message: fmt.Sprintf("%s: the tool's schema could not be applied (%s), so the call cannot be checked", jsonptr.Label(""), strings.TrimPrefix(err.Error(), "jsonschema: ")),
		})
		return
	}
	b.collect(ve)
}

// collect walks the tree down to its leaves. anyOf and oneOf get their own
// treatment (alternatives), and minContains is a leaf whose causes only
// say which items did not match.
func (b *errorBuilder) collect(ve *jsonschema.ValidationError) {
	if b.budget == nil {
		b.budget = &errorBudget{nodes: maxErrorNodes}
	}
	if b.budget.nodes <= 0 {
		b.budget.skipped = true
		return
	}
	b.budget.nodes--
	kw, last, inNames := lastKeyword(ve.KeywordLocation)
	ownKeyword := last == kw && kw != ""
	switch {
	case len(ve.Causes) == 0, ownKeyword && kw == "minContains":
		b.leaf(ve, kw, last, inNames)
	case ownKeyword && (kw == "anyOf" || kw == "oneOf"):
		b.alternatives(ve, kw)
	default:
		for _, c := range ve.Causes {
			b.collect(c)
		}
	}
}

// alternatives explains an anyOf or oneOf that nothing matched, without
// listing every failure of every branch:
//   - when each branch wants another type, one "type" error lists the
//     types allowed ("expected string or null, got integer 3");
//   - when exactly one branch accepts the value's type, that branch's
//     errors are the ones the model needs (it is the shape it meant);
//   - otherwise one error names the keyword and quotes the first problem
//     of up to three of the branches.
func (b *errorBuilder) alternatives(ve *jsonschema.ValidationError, kw string) {
	ptr := fromLibPointer(ve.InstanceLocation)
	var types []string
	var rest [][]Error
	for _, c := range ve.Causes {
		sub := errorBuilder{schema: b.schema, base: b.base, args: b.args, compiled: b.compiled, value: b.value, budget: b.budget, steps: b.steps}
		sub.collect(c)
		es := sub.out
		if len(es) == 1 && es[0].Keyword == "type" && es[0].Pointer == ptr {
			for _, t := range typeNames(gjson.Parse(es[0].Expected)) {
				if !containsString(types, t) {
					types = append(types, t)
				}
			}
			continue
		}
		if len(es) > 0 {
			rest = append(rest, es)
		}
	}
	got := b.argAt(ptr)
	switch len(rest) {
	case 0:
		b.out = append(b.out, Error{
			Pointer:  ptr,
			Keyword:  "type",
			Expected: typeListJSON(types),
			Got:      compactJSON(got.Raw, maxGotLen),
			Message:  fmt.Sprintf("%s: expected %s, got %s%s", jsonptr.Label(ptr), strings.Join(types, " or "), describeValue(got), typeHint(got, types)),
		})
	case 1:
		b.out = append(b.out, rest[0]...)
	default:
		var parts []string
		for i, es := range rest {
			if i == 3 {
				parts = append(parts, fmt.Sprintf("and %d more", len(rest)-i))
				break
			}
			first := sortedErrors(es)[0]
			m := first.Message
			if first.Pointer == ptr {
				m = strings.TrimPrefix(m, jsonptr.Label(ptr)+": ")
			}
			parts = append(parts, fmt.Sprintf("(%d) %s", i+1, clip.Head(m, maxQuotedLen)))
		}
		b.out = append(b.out, Error{
			Pointer:  ptr,
			Keyword:  kw,
			Expected: compactJSON(b.schemaAt(ve.AbsoluteKeywordLocation).Raw, maxExpectedLen),
			Got:      compactJSON(got.Raw, maxGotLen),
			Message:  fmt.Sprintf("%s: %s matches none of the alternatives under %q: %s", jsonptr.Label(ptr), describeValue(got), kw, strings.Join(parts, "; ")),
		})
	}
}

// leaf explains one failing keyword.
func (b *errorBuilder) leaf(ve *jsonschema.ValidationError, kw, last string, inNames bool) {
	ptr := fromLibPointer(ve.InstanceLocation)
	sv := b.schemaAt(ve.AbsoluteKeywordLocation)
	got := b.argAt(ptr)
	if inNames {
		// Under propertyNames the value checked is the name itself.
		got = gjson.Parse(jsonw.Quote(jsonptr.Last(ptr)))
	}
	p := jsonptr.Label(ptr)
	e := Error{Pointer: ptr, Keyword: kw, Expected: compactJSON(sv.Raw, maxExpectedLen), Got: compactJSON(got.Raw, maxGotLen)}
	g := describeValue(got)
	if rejectsAll(sv, kw, last) {
		b.falseSchema(e, kw, last)
		return
	}
	switch kw {
	case "type":
		types := typeNames(sv)
		e.Message = fmt.Sprintf("%s: expected %s, got %s%s", p, strings.Join(types, " or "), g, typeHint(got, types))
	case "required":
		n := len(b.out)
		parentLoc, _ := jsonptr.CutLast(ve.AbsoluteKeywordLocation)
		misspelt := b.misspeltKeys(b.schemaAt(parentLoc), got)
		for _, name := range sv.Array() {
			if !hasKey(got, name.Str) {
				mp := ptr + "/" + jsonptr.Token(name.Str)
				msg := fmt.Sprintf("%s: required property %s is missing", mp, jsonw.Quote(name.Str))
				if s := editdist.Suggest(name.Str, misspelt); len(s) > 0 {
					// Small models write repoPath or Repo_Path for
					// repo_path; without "additionalProperties": false
					// nothing else would tell them that key was the
					// problem.
					msg += fmt.Sprintf(" (the arguments have %s instead; write the name exactly as the schema does)", jsonw.Quote(s[0]))
				}
				b.out = append(b.out, Error{Pointer: mp, Keyword: kw, Expected: e.Expected, Message: msg})
			}
		}
		if len(b.out) > n {
			return
		}
		e.Message = fmt.Sprintf("%s: %s", p, ve.Message)
	case "dependentRequired", "dependencies":
		if last != kw && sv.Type == gjson.String {
			// .../dependentRequired/<name>/<index>: sv is the missing name.
			parent, _ := jsonptr.CutLast(ve.AbsoluteKeywordLocation)
			_, given := jsonptr.CutLast(parent)
			mp := ptr + "/" + jsonptr.Token(sv.Str)
			b.out = append(b.out, Error{Pointer: mp, Keyword: kw, Expected: compactJSON(b.schemaAt(parent).Raw, maxExpectedLen),
				Message: fmt.Sprintf("%s: required property %s is missing (it is required when %s is given)", mp, jsonw.Quote(sv.Str), jsonw.Quote(jsonptr.Unescape(fromLibPointer(given))))})
			return
		}
		e.Message = fmt.Sprintf("%s: %s", p, ve.Message)
	case "additionalProperties":
		if b.extraProperties(ve, e) {
			return
		}
		e.Message = fmt.Sprintf("%s: %s", p, ve.Message)
	case "enum":
		if e.Expected == "[]" {
			e.Message = fmt.Sprintf("%s: no value is allowed here: the schema's enum is empty", p)
			break
		}
		e.Message = fmt.Sprintf("%s: %s is not one of %s", p, e.Got, e.Expected)
		if got.Type == gjson.String {
			// "Celsius" for "celsius", "dark-mode" for "dark_mode": name
			// the value meant, as for a tool or property name.
			var names []string
			for _, v := range sv.Array() {
				if v.Type == gjson.String {
					names = append(names, v.Str)
				}
			}
			if s := editdist.Suggest(got.Str, names); len(s) > 0 {
				e.Message += fmt.Sprintf("; did you mean %s?", jsonw.Quote(s[0]))
			}
		}
	case "const":
		e.Message = fmt.Sprintf("%s: must be %s, got %s", p, e.Expected, g)
	case "minimum":
		e.Message = fmt.Sprintf("%s: %s is less than the minimum %s", p, e.Got, e.Expected)
	case "maximum":
		e.Message = fmt.Sprintf("%s: %s is greater than the maximum %s", p, e.Got, e.Expected)
	case "exclusiveMinimum":
		e.Message = fmt.Sprintf("%s: %s must be greater than %s", p, e.Got, e.Expected)
	case "exclusiveMaximum":
		e.Message = fmt.Sprintf("%s: %s must be less than %s", p, e.Got, e.Expected)
	case "multipleOf":
		e.Message = fmt.Sprintf("%s: %s is not a multiple of %s", p, e.Got, e.Expected)
	case "minLength":
		e.Message = fmt.Sprintf("%s: %s is %d characters long, shorter than the minimum %s", p, e.Got, utf8.RuneCountInString(got.Str), e.Expected)
	case "maxLength":
		e.Message = fmt.Sprintf("%s: %s is %d characters long, longer than the maximum %s", p, e.Got, utf8.RuneCountInString(got.Str), e.Expected)
	case "pattern":
		e.Message = fmt.Sprintf("%s: %s does not match the pattern %s", p, e.Got, e.Expected)
	case "format":
		e.Message = fmt.Sprintf("%s: %s is not a valid %s", p, e.Got, sv.Str)
	case "minItems":
		e.Message = fmt.Sprintf("%s: has %d items, fewer than the minimum %s", p, len(got.Array()), e.Expected)
	case "maxItems":
		e.Message = fmt.Sprintf("%s: has %d items, more than the maximum %s", p, len(got.Array()), e.Expected)
	case "minProperties":
		e.Message = fmt.Sprintf("%s: has %d properties, fewer than the minimum %s", p, len(got.Map()), e.Expected)
	case "maxProperties":
		e.Message = fmt.Sprintf("%s: has %d properties, more than the maximum %s", p, len(got.Map()), e.Expected)
	case "uniqueItems":
		which := ve.Message
		if i, j, ok := b.equalItems(ptr); ok {
			which = fmt.Sprintf("items at index %d and %d are equal", i, j)
		}
		e.Message = fmt.Sprintf("%s: items must be unique, but the %s", p, which)
	case "not":
		e.Message = fmt.Sprintf("%s: %s matches the schema under \"not\" (%s), which is not allowed", p, g, e.Expected)
	case "oneOf":
		which := strings.TrimPrefix(ve.Message, "valid against ")
		if m := b.accepting(ve.AbsoluteKeywordLocation, sv, ptr); len(m) >= 2 {
			which = fmt.Sprintf("schemas at indexes %d and %d", m[0], m[1])
		}
		e.Message = fmt.Sprintf("%s: %s matches more than one alternative under \"oneOf\" (%s); it must match exactly one", p, g, which)
	case "minContains", "maxContains":
		parent, _ := jsonptr.CutLast(ve.AbsoluteKeywordLocation)
		contains := b.schemaAt(parent + "/contains")
		e.Expected = compactJSON(contains.Raw, maxExpectedLen)
		// Without "minContains", "contains" asks for at least one.
		want, bound := 1, "at least"
		if sv.Exists() {
			want = int(sv.Int())
		}
		if kw == "maxContains" {
			bound = "at most"
		}
		if have, ok := b.containsCount(parent+"/contains", ptr); ok && (sv.Exists() || kw == "minContains") {
			e.Message = fmt.Sprintf("%s: %s %s must match %s, but %d do", p, bound, phrase.Plural(want, "item"), e.Expected, have)
		} else {
			e.Message = fmt.Sprintf("%s: %s", p, ve.Message)
		}
	default:
		e.Message = fmt.Sprintf("%s: %s", p, ve.Message)
	}
	if inNames {
		e.Message = strings.Replace(e.Message, ": ", ": the property name ", 1)
	}
	b.out = append(b.out, e)
}

// rejectsAll reports whether a failure is a schema of false rejecting the
// value at the instance location, told from where the keyword is and
// what the schema holds there: false, at a subschema's place (a property
// name, an index, a $ref, or a keyword whose value is a schema), not a
// keyword whose own value is false ("const": false). A boolean
// "additionalProperties" or "additionalItems" is the keyword failing on
// the object or array with too much in it (extraProperties), as the
// validator reports it there rather than on each extra member.
func rejectsAll(sv gjson.Result, kw, last string) bool {
	if sv.Type != gjson.False {
		return false
	}
	if last != kw {
		return true
	}
	switch kw {
	case "", "$ref", "$dynamicRef", "$recursiveRef", "not", "if", "then", "else", "items", "contains",
		"propertyNames", "unevaluatedProperties", "unevaluatedItems", "contentSchema":
		return true
	}
	return false
}

// containsCount counts the items of the array at ptr that the compiled
// subschema at loc (a "contains") accepts; false when either is not found.
func (b *errorBuilder) containsCount(loc, ptr string) (int, bool) {
	sub := compiledAt(b.compiled, loc)
	items, ok := jsonptr.ValueAt(b.value, ptr).([]any)
	if sub == nil || !ok {
		return 0, false
	}
	n := 0
	for _, item := range items {
		switch err := b.steps.check(sub, item); {
		case err == nil:
			n++
		case errors.Is(err, ErrTooCostly):
			return 0, false
		}
	}
	return n, true
}

// equalItems finds the first item of the array at ptr equal to an
// earlier one (j) and that earlier one (i), equal as JSON values: 1 and
// 1.0 are the same number, objects are the same whatever their key order.
func (b *errorBuilder) equalItems(ptr string) (i, j int, ok bool) {
	items, _ := jsonptr.ValueAt(b.value, ptr).([]any)
	first := make(map[string]int, len(items))
	var key []byte
	for j, item := range items {
		key = appendCanonical(key[:0], item)
		if i, ok := first[string(key)]; ok {
			return i, j, true
		}
		first[string(key)] = j
	}
	return 0, 0, false
}

// appendCanonical appends a form of a decoded arguments value (see
// argDecoder) that is the same for equal JSON values and differs for
// others: numbers as exact fractions, object keys sorted.
func appendCanonical(b []byte, v any) []byte {
	switch v := v.(type) {
	case json.Number:
		var r big.Rat
		if _, ok := r.SetString(string(v)); ok {
			return append(append(b, 'n'), r.RatString()...)
		}
		return append(append(b, 'N'), v...)
	case string:
		return jsonw.AppendString(b, v)
	case bool:
		return strconv.AppendBool(b, v)
	case nil:
		return append(b, "null"...)
	case []any:
		b = append(b, '[')
		for _, x := range v {
			b = append(appendCanonical(b, x), ',')
		}
		return append(b, ']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for _, k := range keys {
			b = append(jsonw.AppendString(b, k), ':')
			b = append(appendCanonical(b, v[k]), ',')
		}
		return append(b, '}')
	}
	return append(b, '?')
}

// accepting returns the indexes of the alternatives of the "oneOf" at loc
// (whose value is sv) that accept the value at ptr.
func (b *errorBuilder) accepting(loc string, sv gjson.Result, ptr string) []int {
	v := jsonptr.ValueAt(b.value, ptr)
	var ok []int
	for i := range sv.Array() {
		sub := compiledAt(b.compiled, loc+"/"+strconv.Itoa(i))
		if sub == nil {
			return nil
		}
		switch err := b.steps.check(sub, v); {
		case err == nil:
			ok = append(ok, i)
		case errors.Is(err, ErrTooCostly):
			return nil
		}
	}
	return ok
}

// compiledAt finds the compiled subschema whose location is loc, in the
// schema and everything it reaches, $refs included.
func compiledAt(root *jsonschema.Schema, loc string) *jsonschema.Schema {
	seen := map[*jsonschema.Schema]bool{}
	var find func(s *jsonschema.Schema) *jsonschema.Schema
	find = func(s *jsonschema.Schema) *jsonschema.Schema {
		if s == nil || seen[s] {
			return nil
		}
		seen[s] = true
		if s.Location == loc {
			return s
		}
		for _, c := range subschemas(s) {
			if f := find(c); f != nil {
				return f
			}
		}
		return nil
	}
	return find(root)
}

// subschemas lists the schemas s holds directly: those it applies to the
// value itself, then those it applies to the value's members and items.
func subschemas(s *jsonschema.Schema) []*jsonschema.Schema {
	return append(inPlaceSubschemas(s), memberSubschemas(s)...)
}

// memberSubschemas lists the schemas s applies to the members, items,
// names or content of its value.
func memberSubschemas(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.PropertyNames, s.UnevaluatedProperties, s.Items2020, s.Contains, s.UnevaluatedItems, s.ContentSchema}
	out = append(out, s.PrefixItems...)
	for _, c := range s.Properties {
		out = append(out, c)
	}
	for _, c := range s.PatternProperties {
		out = append(out, c)
	}
	for _, x := range []any{s.AdditionalProperties, s.AdditionalItems, s.Items} {
		switch x := x.(type) {
		case *jsonschema.Schema:
			out = append(out, x)
		case []*jsonschema.Schema:
			out = append(out, x...)
		}
	}
	return out
}

// falseSchema explains a value where the schema allows nothing ("false"),
// such as a property under "unevaluatedProperties": false or an item past
// "items": false.
func (b *errorBuilder) falseSchema(e Error, kw, last string) {
	e.Keyword = "false"
	e.Expected = "false"
	if last == kw {
		switch kw {
		case "additionalProperties", "unevaluatedProperties", "items", "additionalItems", "unevaluatedItems":
			e.Keyword = kw
		}
	}
	parent, tok := jsonptr.CutLast(e.Pointer)
	switch pv := b.argAt(parent); {
	case e.Pointer == "":
		e.Message = fmt.Sprintf("%s: no arguments are allowed", jsonptr.Label(""))
	case pv.IsObject():
		e.Message = fmt.Sprintf("%s: property %s is not allowed; remove it", e.Pointer, jsonw.Quote(jsonptr.Unescape(tok)))
	case pv.IsArray():
		e.Message = fmt.Sprintf("%s: item %s is not allowed here; remove it", e.Pointer, tok)
	default:
		e.Message = fmt.Sprintf("%s: no value is allowed here; remove it", e.Pointer)
	}
	b.out = append(b.out, e)
}

// extraProperties explains "additionalProperties": false with one error
// per property the schema does not name, pointing at that property and
// suggesting the allowed name the model probably meant.
func (b *errorBuilder) extraProperties(ve *jsonschema.ValidationError, e Error) bool {
	parentLoc, _ := jsonptr.CutLast(ve.AbsoluteKeywordLocation)
	parent := b.schemaAt(parentLoc)
	var allowed []string
	parent.Get("properties").ForEach(func(k, _ gjson.Result) bool {
		allowed = append(allowed, k.Str)
		return true
	})
	var patterns []*regexp.Regexp
	parent.Get("patternProperties").ForEach(func(k, _ gjson.Result) bool {
		if re, err := regexp.Compile(k.Str); err == nil {
			patterns = append(patterns, re)
		}
		return true
	})
	obj := b.argAt(e.Pointer)
	found := false
	obj.ForEach(func(k, v gjson.Result) bool {
		if containsString(allowed, k.Str) {
			return true
		}
		for _, re := range patterns {
			if re.MatchString(k.Str) {
				return true
			}
		}
		found = true
		mp := e.Pointer + "/" + jsonptr.Token(k.Str)
		msg := fmt.Sprintf("%s: property %s is not allowed", mp, jsonw.Quote(k.Str))
		if s := editdist.Suggest(k.Str, allowed); len(s) > 0 {
			msg += fmt.Sprintf("; did you mean %s?", jsonw.Quote(s[0]))
		} else if len(allowed) > 0 {
			msg += fmt.Sprintf(" (allowed: %s)", quoteNames(allowed, 10))
		}
		b.out = append(b.out, Error{Pointer: mp, Keyword: "additionalProperties", Expected: "false",
			Got: compactJSON(v.Raw, maxGotLen), Message: msg})
		return true
	})
	return found
}

// misspeltKeys lists the keys of obj that its schema does not declare,
// as candidates for a required property the model wrote another way. It
// is empty when the schema forbids other keys: those get their own
// "not allowed; did you mean" error, which says the same.
func (b *errorBuilder) misspeltKeys(parent, obj gjson.Result) []string {
	if parent.Get("additionalProperties").Type == gjson.False || parent.Get("unevaluatedProperties").Type == gjson.False {
		return nil
	}
	props := parent.Get("properties")
	var out []string
	obj.ForEach(func(k, _ gjson.Result) bool {
		if !hasKey(props, k.Str) {
			out = append(out, k.Str)
		}
		return true
	})
	return out
}

// sorted returns the errors in a stable order, without repeats: the first
// maxShownErrors of them, and then, when there were more or the tree was
// not read to its end, one saying so (keyword "more").
func (b *errorBuilder) sorted() []Error {
	es := sortedErrors(b.out)
	skipped := b.budget != nil && b.budget.skipped
	if len(es) <= maxShownErrors && !skipped {
		return es
	}
	var rest []string
	if n := len(es) - maxShownErrors; n > 0 {
		es = es[:maxShownErrors]
		rest = append(rest, phrase.Plural(n, "more problem")+" not shown")
	}
	if skipped {
		rest = append(rest, "the schema's checks were too many to explain them all")
	}
	return append(es, Error{
		Keyword: "more",
		Message: fmt.Sprintf("%s: %s; fix the ones above and call again to see the rest", jsonptr.Label(""), strings.Join(rest, ", and ")),
	})
}

func sortedErrors(es []Error) []Error {
	es = slices.Clone(es)
	slices.SortStableFunc(es, func(x, y Error) int {
		if c := jsonptr.Compare(x.Pointer, y.Pointer); c != 0 {
			return c
		}
		if c := strings.Compare(x.Keyword, y.Keyword); c != 0 {
			return c
		}
		return strings.Compare(x.Message, y.Message)
	})
	return slices.Compact(es)
}

// schemaAt returns the schema's value at a location the validator gave,
// or nothing when the location is in another document.
func (b *errorBuilder) schemaAt(loc string) gjson.Result {
	base, frag, _ := strings.Cut(loc, "#")
	if base != b.base {
		return gjson.Result{}
	}
	return jsonptr.At(gjson.ParseBytes(b.schema), fromLibPointer(frag))
}

// argAt returns the value at a JSON pointer in the arguments.
func (b *errorBuilder) argAt(ptr string) gjson.Result {
	return jsonptr.At(gjson.ParseBytes(b.args), ptr)
}

// lastKeyword reads a keyword location such as
// "/properties/a/anyOf/0/type": the last keyword in it ("type"), its last
// segment ("type"; an index or a property name when the location ends at
// a subschema), and whether it passes through propertyNames.
func lastKeyword(loc string) (kw, last string, inNames bool) {
	if loc == "" {
		return "", "", false
	}
	name := false // the next segment is a property name, not a keyword
	for _, seg := range strings.Split(strings.TrimPrefix(loc, "/"), "/") {
		last = seg
		switch {
		case name:
			name = false
		case isIndex(seg):
			// an index under allOf, anyOf, oneOf, prefixItems, items (array form)
		default:
			kw = seg
			switch seg {
			case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies", "dependentRequired":
				name = true
			case "propertyNames":
				inNames = true
			}
		}
	}
	return kw, last, inNames
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// typeNames reads the value of a "type" keyword: a name or a list.
func typeNames(v gjson.Result) []string {
	if v.Type == gjson.String {
		return []string{v.Str}
	}
	var out []string
	for _, t := range v.Array() {
		out = append(out, t.Str)
	}
	return out
}

// typeListJSON writes type names as the value of a "type" keyword.
func typeListJSON(types []string) string {
	if len(types) == 1 {
		return jsonw.Quote(types[0])
	}
	b := []byte{'['}
	for i, t := range types {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendString(b, t)
	}
	return string(append(b, ']'))
}

// describeValue says what a value is for a message: `string "42"`,
// `integer 7`, `null`, or `nothing` where there is no value.
func describeValue(v gjson.Result) string {
	if !v.Exists() {
		return "nothing"
	}
	if v.Type == gjson.Null {
		return "null"
	}
	return phrase.Kind(v) + " " + compactJSON(v.Raw, maxGotLen)
}

// typeHint tells the model how to write a string that spells a value of
// the wanted type, such as "42" where an integer is wanted, or an array
// or object it wrote as a string of JSON ("[\"a\"]"), which models often
// do for nested values.
func typeHint(got gjson.Result, types []string) string {
	if got.Type == gjson.String {
		if to, ok := coerceString(got.Str, types); ok {
			return fmt.Sprintf("; write %s without quotes", to)
		}
		inner := strings.TrimSpace(got.Str)
		if inner != "" && (inner[0] == '[' || inner[0] == '{') && gjson.Valid(inner) {
			if kind := phrase.Kind(gjson.Parse(inner)); slices.Contains(types, kind) {
				return fmt.Sprintf("; write the %s itself, not a string holding its JSON", kind)
			}
		}
	}
	if len(types) == 1 && types[0] == "array" && got.Exists() && !got.IsArray() {
		// {"edits": {...}} or {"files": "a.txt"} for a list of one.
		if raw := compactJSON(got.Raw, maxGotLen); !strings.HasSuffix(raw, "…") {
			return fmt.Sprintf("; an array is needed even for one item: [%s]", raw)
		}
		return "; an array is needed even for one item: put it inside [ ]"
	}
	return ""
}

// hasKey reports whether the object v has the property name.
func hasKey(v gjson.Result, name string) bool {
	found := false
	v.ForEach(func(k, _ gjson.Result) bool {
		found = k.Str == name
		return !found
	})
	return found
}

func containsString(list []string, s string) bool {
	return slices.Contains(list, s)
}

// quoteNames quotes up to n names, for messages.
func quoteNames(names []string, n int) string {
	var parts []string
	for i, s := range names {
		if i == n {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, jsonw.Quote(s))
	}
	return strings.Join(parts, ", ")
}

// fromLibPointer turns a location as the validator writes it (each token
// also URL-path-escaped) into a plain JSON pointer.
func fromLibPointer(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	toks := strings.Split(p, "/")
	for i, t := range toks {
		if u, err := url.PathUnescape(t); err == nil {
			toks[i] = u
		}
	}
	return strings.Join(toks, "/")
}
