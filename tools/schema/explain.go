package schema

import (
	"fmt"
	"regexp"
	"slices"
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
