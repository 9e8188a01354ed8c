// Package eval scores a model's tool calls against cases with known right
// answers: BFCL's AST checking rules (docs/eval.md lists each one), for
// the categories simple, multiple, parallel, parallel_multiple and
// irrelevance, in Python, Java and JavaScript type conventions.
package eval

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Why says, in one word, why a reply missed.
type Why string

const (
	WhyRight           Why = ""
	WhyNoCall          Why = "no_call"          // no call where one was expected
	WhyParseError      Why = "parse_error"      // a call was attempted but not read
	WhyExtraCall       Why = "extra_call"       // more calls than expected, or any call where none was
	WhyMissingCall     Why = "missing_call"     // fewer calls than expected, but some
	WhyWrongFunction   Why = "wrong_function"   // a call to another function than the expected one
	WhyMissingArgument Why = "missing_argument" // a required (or expected) argument left out
	WhyUnknownArgument Why = "unknown_argument" // an argument the function or the answer does not have
	WhyWrongType       Why = "wrong_type"       // a value of another type than the parameter's
	WhyValue           Why = "value_not_accepted"
)

// Call is one call the model made: the tool's name and its arguments, a
// JSON object.
type Call struct {
	Name      string
	Arguments json.RawMessage
}

// Verdict is how one reply scored.
type Verdict struct {
	Right bool
	Why   Why
	// Reason says it in words: which call, which argument, which value.
	Reason string
	// Rule is the BFCL checker's name for the miss ("simple_function_checker:missing_required").
	Rule string
}

func miss(why Why, rule, format string, a ...any) Verdict {
	return Verdict{Why: why, Rule: rule, Reason: fmt.Sprintf(format, a...)}
}

var right = Verdict{Right: true}

// Check scores calls (the model's, in order) against the case. parseErrors
// is how many calls were attempted but could not be read: with no call
// read, they make the miss a parse error rather than no call.
func Check(c *Case, calls []Call, parseErrors int) Verdict {
	if c.Irrelevant() {
		// BFCL: right when the reply holds no call that decodes.
		if len(calls) == 0 {
			return right
		}
		return miss(WhyExtraCall, "irrelevance:call_made", "no function fits the request, but the model called %s", calls[0].Name)
	}
	if len(calls) == 0 {
		if parseErrors > 0 {
			return miss(WhyParseError, "ast_decoder:decoder_failed", "the model's call could not be read (%d parse errors)", parseErrors)
		}
		return miss(WhyNoCall, "ast_decoder:no_call", "the model made no call; expected %s", c.expectedNames())
	}
	outputs := make([]modelCall, len(calls))
	for i, call := range calls {
		outputs[i] = modelCall{name: call.Name}
		if err := decodeArguments(call.Arguments, &outputs[i].args); err != nil {
			return miss(WhyParseError, "ast_decoder:decoder_failed", "call %d (%s): arguments are not a JSON object: %v", i+1, call.Name, err)
		}
	}
	switch c.Kind() {
	case KindParallel:
		return c.parallel(outputs)
	case KindMultiple:
		if v, ok := countMiss(len(outputs), len(c.Answer), "multiple_function_checker:wrong_count"); !ok {
			return v
		}
		return c.simple(c.function(c.Answer[0].Name), outputs[0], c.Answer[0])
	default:
		if v, ok := countMiss(len(outputs), 1, "simple_function_checker:wrong_count"); !ok {
			return v
		}
		return c.simple(c.function(c.Answer[0].Name), outputs[0], c.Answer[0])
	}
}

func countMiss(got, want int, rule string) (Verdict, bool) {
	switch {
	case got > want:
		return miss(WhyExtraCall, rule, "%d calls, expected %d", got, want), false
	case got < want:
		return miss(WhyMissingCall, rule, "%d calls, expected %d", got, want), false
	}
	return right, true
}

type modelCall struct {
	name string
	args orderedArgs
}

// parallel matches each expected call, in the answer's order, with the
// first model call not yet matched that passes for it: any order is right.
func (c *Case) parallel(outputs []modelCall) Verdict {
	if v, ok := countMiss(len(outputs), len(c.Answer), "parallel_function_checker_no_order:wrong_count"); !ok {
		return v
	}
	used := make([]bool, len(outputs))
	for i, want := range c.Answer {
		fn := c.function(want.Name)
		var closest *Verdict // the miss of the first call to the same function
		found := false
		for j, out := range outputs {
			if used[j] {
				continue
			}
			v := c.simple(fn, out, want)
			if v.Right {
				used[j], found = true, true
				break
			}
			if closest == nil && v.Why != WhyWrongFunction {
				closest = &v
			}
		}
		if !found {
			v := miss(WhyWrongFunction, "", "no call to %s", want.Name)
			if stray := c.strayCall(outputs, used); stray != "" {
				v = miss(WhyWrongFunction, "", "called %s, which the answer does not call", stray)
			} else if closest != nil {
				v = *closest
			}
			v.Rule = "parallel_function_checker_no_order:cannot_find_match"
			v.Reason = fmt.Sprintf("no call matches expected call %d (%s): %s", i+1, want.Name, v.Reason)
			return v
		}
	}
	return right
}

// strayCall is the name of a call not matched so far to a function the
// answer does not call at all: the likeliest reason for a miss.
func (c *Case) strayCall(outputs []modelCall, used []bool) string {
	for j, out := range outputs {
		if used[j] {
			continue
		}
		expected := false
		for _, e := range c.Answer {
			expected = expected || sameName(e.Name, out.name)
		}
		if !expected {
			return out.name
		}
	}
	return ""
}

// simple is BFCL's simple_function_checker: the right function, its
// required parameters present, no parameter the function or the answer
// lacks, each value of the parameter's type and among the accepted ones,
// and every parameter the answer requires present.
func (c *Case) simple(fn *Function, out modelCall, want Expected) Verdict {
	if fn == nil || !sameName(fn.Name, out.name) {
		return miss(WhyWrongFunction, "simple_function_checker:wrong_func_name", "called %s, expected %s", out.name, want.Name)
	}
	for _, p := range fn.Required {
		if _, ok := out.args.get(p); !ok {
			return miss(WhyMissingArgument, "simple_function_checker:missing_required", "%s: missing required argument %q", out.name, p)
		}
	}
	for _, kv := range out.args {
		param, value := kv.name, kv.value
		detail, known := fn.Params[param]
		accepted, expected := want.Params.get(param)
		if !known || !expected {
			return miss(WhyUnknownArgument, "simple_function_checker:unexpected_param", "%s: unexpected argument %q", out.name, param)
		}
		if v := c.checkValue(out.name, param, detail, value, accepted); !v.Right {
			return v
		}
	}
	for _, kv := range want.Params {
		if _, ok := out.args.get(kv.name); !ok && !optional(kv.accepted) {
			return miss(WhyMissingArgument, "simple_function_checker:missing_optional", "%s: argument %q left out, and the answer needs it", out.name, kv.name)
		}
	}
	return right
}

// sameName compares the function's name with the one called, allowing
// the dots a name had to lose where the API forbids them (BFCL's
// underscore_to_dot).
func sameName(want, got string) bool {
	return want == got || (strings.Contains(want, ".") && strings.ReplaceAll(want, ".", "_") == got)
}

func optional(accepted []any) bool {
	for _, a := range accepted {
		if s, ok := a.(string); ok && s == "" {
			return true
		}
	}
	return false
}

// checkValue checks one argument's type and value (see simple).
func (c *Case) checkValue(fn, param string, detail Param, value any, accepted []any) Verdict {
	typ, nested := c.Language.types(detail)
	if detail.ItemsType == "any" {
		// Items of any type: BFCL's tables make "any" a str, which its
		// own answers break (a Java ArrayList of keys and values); a
		// typed call's items are taken as they come.
		nested = ""
	}
	if lang := c.Language; lang != Python {
		if s, ok := value.(string); ok {
			// The language's literal written as a string, as BFCL's
			// Java and JavaScript answers are: read it as BFCL does.
			value = lang.convert(s, detail.Type, detail.ItemsType)
		}
	}
	if c.Language == Python && detail.Type == "float" && pyType(value) == "int" {
		value = json.Number(string(value.(json.Number)) + ".0") // Python takes an int for a float
	}
	variable, v := typeCheck(fn, param, value, accepted, typ, nested)
	if !v.Right {
		return v
	}
	if !variable {
		switch {
		case typ == "dict":
			return dictCheck(fn, param, value.(map[string]any), accepted)
		case typ == "list" && nested == "dict":
			return listDictCheck(fn, param, value.([]any), accepted)
		case typ == "str":
			return stringCheck(fn, param, value.(string), accepted)
		case typ == "list":
			return listCheck(fn, param, value.([]any), accepted)
		}
	}
	if !pyIn(value, accepted) {
		return miss(WhyValue, "value_error:others", "%s: %s=%s is not accepted (accepted: %s)", fn, param, pyRepr(value), reprList(accepted))
	}
	return right
}

// answerType is the type of the first accepted value that is not "" (the
// mark of an optional parameter), or "".
func answerType(accepted []any) string {
	for _, a := range accepted {
		if s, ok := a.(string); ok && s == "" {
			continue
		}
		return pyType(a)
	}
	return ""
}

// typeCheck is BFCL's type_checker. A value whose type is not the
// parameter's passes when it has the accepted values' type: the answer
// names a variable (a string) where the parameter wants an object, and
// the value is then compared as it is. variable reports that case.
func typeCheck(fn, param string, value any, accepted []any, typ, nested string) (variable bool, v Verdict) {
	at := answerType(accepted)
	variable = at != "" && at != typ
	got := pyType(value)
	nestedFailed := false
	if got == typ || typ == "" {
		if nested == "" {
			return variable, right
		}
		for _, a := range accepted {
			items, isList := a.([]any)
			ok := true
			if isList {
				list, _ := value.([]any)
				for _, item := range list {
					if _, iv := typeCheck(fn, param, item, items, nested, ""); !iv.Right {
						ok = false
						break
					}
				}
			}
			if ok {
				return variable, right
			}
		}
		nestedFailed = true
	}
	if at != "" && got == at {
		if nestedFailed {
			return true, miss(WhyWrongType, "type_error:nested", "%s: %s=%s: its items are not all %s", fn, param, pyRepr(value), nested)
		}
		return true, right
	}
	if nestedFailed {
		return variable, miss(WhyWrongType, "type_error:nested", "%s: %s=%s: its items are not all %s", fn, param, pyRepr(value), nested)
	}
	return variable, miss(WhyWrongType, "type_error:simple", "%s: %s=%s is a %s, expected %s", fn, param, pyRepr(value), got, typ)
}

// stringCheck compares standardized strings (see standardize).
func stringCheck(fn, param, value string, accepted []any) Verdict {
	s := standardize(value)
	for _, a := range accepted {
		if as, ok := a.(string); ok && standardize(as) == s {
			return right
		}
	}
	return miss(WhyValue, "value_error:string", "%s: %s=%q is not accepted (accepted, ignoring case, spaces and ,./-_*^: %s)", fn, param, value, reprList(accepted))
}

// standardizeItems standardizes the strings of a list. An accepted value
// that is a string is taken character by character, as Python iterates
// it: the "" of an optional parameter becomes the empty list.
func standardizeItems(v any) []any {
	var items []any
	switch v := v.(type) {
	case []any:
		items = v
	case string:
		for _, r := range v {
			items = append(items, string(r))
		}
	default:
		return nil
	}
	out := make([]any, len(items))
	for i, x := range items {
		if s, ok := x.(string); ok {
			out[i] = standardize(s)
		} else {
			out[i] = x
		}
	}
	return out
}

// listCheck compares the list, its strings standardized, with each
// accepted list: the order of the items counts.
func listCheck(fn, param string, value []any, accepted []any) Verdict {
	mine := standardizeItems(value)
	for _, a := range accepted {
		if theirs := standardizeItems(a); theirs != nil && pyEqual(mine, theirs) {
			return right
		}
	}
	return miss(WhyValue, "value_error:list/tuple", "%s: %s=%s is not accepted (accepted: %s)", fn, param, pyRepr(value), reprList(accepted))
}

// dictCheck is BFCL's dict_checker: an accepted dict lists, for each key,
// its accepted values ("" among them: the key may be left out).
func dictCheck(fn, param string, value map[string]any, accepted []any) Verdict {
	last := miss(WhyValue, "dict_checker:unclear", "%s: %s=%s is not accepted", fn, param, pyRepr(value))
	for _, a := range accepted {
		want, ok := a.(map[string]any)
		if !ok {
			continue
		}
		if v := dictMatches(fn, param, value, want); v.Right {
			return right
		} else {
			last = v
		}
	}
	return last
}

func dictMatches(fn, param string, value, want map[string]any) Verdict {
	for _, k := range sortedKeys(value) {
		acc, ok := want[k]
		if !ok {
			return miss(WhyUnknownArgument, "value_error:dict_key", "%s: %s has an unexpected key %q", fn, param, k)
		}
		list, isList := acc.([]any)
		if !isList {
			list = []any{acc} // one accepted value, written as itself
		}
		v := value[k]
		if s, isString := v.(string); isString {
			v = standardize(s)
		}
		found := false
		for _, x := range list {
			if s, isString := x.(string); isString {
				x = standardize(s)
			}
			if pyEqual(v, x) {
				found = true
				break
			}
		}
		if !found {
			return miss(WhyValue, "value_error:dict_value", "%s: %s[%q]=%s is not accepted (accepted: %s)", fn, param, k, pyRepr(value[k]), reprList(list))
		}
	}
	for _, k := range sortedKeys(want) {
		list, isList := want[k].([]any)
		if !isList {
			list = []any{want[k]}
		}
		if _, ok := value[k]; !ok && !optional(list) {
			return miss(WhyMissingArgument, "value_error:dict_key", "%s: %s lacks the key %q", fn, param, k)
		}
	}
	return right
}

// listDictCheck is BFCL's list_dict_checker: as many dicts as an
// accepted list has, each matching the accepted dict at its place.
func listDictCheck(fn, param string, value []any, accepted []any) Verdict {
	last := miss(WhyValue, "list_dict_checker:unclear", "%s: %s=%s is not accepted", fn, param, pyRepr(value))
	for _, a := range accepted {
		want, ok := a.([]any)
		if !ok {
			continue
		}
		if len(want) != len(value) {
			last = miss(WhyValue, "value_error:list_dict_count", "%s: %s has %d dicts, expected %d", fn, param, len(value), len(want))
			continue
		}
		matched := true
		for i := range value {
			d, _ := value[i].(map[string]any)
			w, _ := want[i].(map[string]any)
			if d == nil || w == nil {
				last, matched = miss(WhyValue, "list_dict_checker:unclear", "%s: %s[%d] is not a dict", fn, param, i), false
				break
			}
			if v := dictMatches(fn, param, d, w); !v.Right {
				last, matched = v, false
				break
			}
		}
		if matched {
			return right
		}
	}
	return last
}

func reprList(list []any) string {
	parts := make([]string, len(list))
	for i, v := range list {
		parts[i] = pyRepr(v)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
