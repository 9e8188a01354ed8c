package eval

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"testing"
)

func bfclCases(t *testing.T) []*Case {
	t.Helper()
	cases, err := Load("../../testdata/bfcl")
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// groundTruthCall writes the call an answer expects: each argument's
// first accepted value, and no argument whose only accepted value is ""
// (left out).
func groundTruthCall(c *Case, e Expected) (Call, map[string]any) {
	args := map[string]any{}
	var order []string
	fn := c.function(e.Name)
	for _, p := range e.Params {
		if _, ok := fn.Params[p.name]; !ok {
			continue // a BFCL answer may name a parameter the function lacks, as optional
		}
		for _, v := range p.accepted {
			if s, ok := v.(string); ok && s == "" {
				continue
			}
			args[p.name] = firstAccepted(v)
			order = append(order, p.name)
			break
		}
	}
	return Call{Name: e.Name, Arguments: marshalOrdered(order, args)}, args
}

// firstAccepted turns an accepted dict (each key's accepted values) into
// a value: each key's first accepted value, optional keys left out.
func firstAccepted(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, accepted := range v {
			list, ok := accepted.([]any)
			if !ok { // a dict given as a value, not as accepted values
				out[k] = accepted
				continue
			}
			for _, x := range list {
				if s, ok := x.(string); ok && s == "" {
					continue
				}
				out[k] = firstAccepted(x)
				break
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			if d, ok := x.(map[string]any); ok {
				out[i] = firstAccepted(d)
			} else {
				out[i] = x
			}
		}
		return out
	}
	return v
}

func marshalOrdered(order []string, args map[string]any) json.RawMessage {
	b := []byte{'{'}
	for i, k := range order {
		if i > 0 {
			b = append(b, ',')
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(args[k])
		b = append(append(append(b, kb...), ':'), vb...)
	}
	return append(b, '}')
}

func answerCalls(c *Case) []Call {
	var calls []Call
	for _, e := range c.Answer {
		call, _ := groundTruthCall(c, e)
		calls = append(calls, call)
	}
	return calls
}

// Every ground-truth answer of the BFCL subset, written as calls, scores
// right; the parallel ones in reverse order too, and every irrelevance
// case with no call.
func TestGroundTruthScoresRight(t *testing.T) {
	cases := bfclCases(t)
	if len(cases) != 175 {
		t.Fatalf("%d cases, want the 175 of testdata/bfcl", len(cases))
	}
	for _, c := range cases {
		calls := answerCalls(c)
		if v := Check(c, calls, 0); !v.Right {
			t.Errorf("%s: ground truth scored %s: %s (%s)\n%s", c.ID, v.Why, v.Reason, v.Rule, calls)
		}
		if c.Kind() == KindParallel && len(calls) > 1 {
			reversed := make([]Call, len(calls))
			for i := range calls {
				reversed[len(calls)-1-i] = calls[i]
			}
			if v := Check(c, reversed, 0); !v.Right {
				t.Errorf("%s: ground truth in reverse order scored %s: %s", c.ID, v.Why, v.Reason)
			}
		}
	}
}

// Mutated answers score as the rules say, each with its reason: a few
// hundred calls, each a ground truth changed in one way.
func TestMutatedCallsMiss(t *testing.T) {
	counts := map[Why]int{}
	for _, c := range bfclCases(t) {
		calls := answerCalls(c)
		expect := func(what string, got []Call, parseErrors int, want Why) {
			t.Helper()
			v := Check(c, got, parseErrors)
			if v.Right || v.Why != want {
				t.Errorf("%s, %s: scored %v/%s (%s), want %s", c.ID, what, v.Right, v.Why, v.Reason, want)
			}
			if v.Reason == "" || v.Rule == "" {
				t.Errorf("%s, %s: a miss without its reason or rule: %+v", c.ID, what, v)
			}
			counts[want]++
		}
		if c.Irrelevant() {
			fn := c.Functions[0]
			expect("a call where none fits", []Call{{Name: fn.Name, Arguments: json.RawMessage(`{}`)}}, 0, WhyExtraCall)
			continue
		}
		expect("no call", nil, 0, WhyNoCall)
		expect("a call not read", nil, 1, WhyParseError)
		expect("one call too many", append(append([]Call{}, calls...), calls[0]), 0, WhyExtraCall)
		if len(calls) > 1 {
			expect("one call too few", calls[:len(calls)-1], 0, WhyMissingCall)
		}

		wrong := append([]Call{}, calls...)
		wrong[0].Name = "not_" + wrong[0].Name
		expect("another function", wrong, 0, WhyWrongFunction)

		// The argument mutations, on the first expected call alone.
		if c.Kind() == KindParallel {
			single := *c
			single.Category, single.Answer = "simple", c.Answer[:1]
			c = &single
		}
		fn := c.function(c.Answer[0].Name)
		_, args := groundTruthCall(c, c.Answer[0])
		with := func(change func(map[string]any)) []Call {
			m := map[string]any{}
			var order []string
			for _, p := range c.Answer[0].Params {
				if v, ok := args[p.name]; ok {
					m[p.name] = v
					order = append(order, p.name)
				}
			}
			change(m)
			var kept []string
			for _, k := range order {
				if _, ok := m[k]; ok {
					kept = append(kept, k)
				}
			}
			for k := range m {
				if _, ok := args[k]; !ok {
					kept = append(kept, k)
				}
			}
			return []Call{{Name: c.Answer[0].Name, Arguments: marshalOrdered(kept, m)}}
		}
		expect("an unknown argument", with(func(m map[string]any) { m["zz_not_a_parameter"] = 1 }), 0, WhyUnknownArgument)
		if len(fn.Required) > 0 {
			expect("a required argument left out", with(func(m map[string]any) { delete(m, fn.Required[0]) }), 0, WhyMissingArgument)
		}
		for _, p := range c.Answer[0].Params {
			v, ok := args[p.name]
			if !ok {
				continue
			}
			bad, ok := outside(v, p.accepted)
			if !ok {
				continue
			}
			expect(fmt.Sprintf("%s=%v, not accepted", p.name, bad), with(func(m map[string]any) { m[p.name] = bad }), 0, WhyValue)
			break
		}
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	if total < 300 {
		t.Errorf("only %d mutated calls (%v)", total, counts)
	}
	t.Logf("%d mutated calls: %v", total, counts)
}

// outside is a value of v's type that is not among accepted.
func outside(v any, accepted []any) (any, bool) {
	var bad any
	switch v := v.(type) {
	case string:
		bad = v + " zzz"
	case json.Number:
		r, _ := numeric(v)
		r.Add(r, big.NewRat(987, 1))
		if isIntText(string(v)) {
			bad = json.Number(r.RatString())
		} else {
			f, _ := r.Float64()
			bad = json.Number(strconv.FormatFloat(f+0.5, 'f', -1, 64))
			if isIntText(string(bad.(json.Number))) {
				bad = json.Number(string(bad.(json.Number)) + ".0")
			}
		}
	case float64:
		bad = v + 987
	default:
		return nil, false
	}
	if s, ok := bad.(string); ok {
		for _, a := range accepted {
			if as, ok := a.(string); ok && standardize(as) == standardize(s) {
				return nil, false
			}
		}
	}
	if pyIn(bad, accepted) {
		return nil, false
	}
	return bad, true
}
