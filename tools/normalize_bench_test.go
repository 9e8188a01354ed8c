package tools

import (
	"testing"

	"github.com/tidwall/gjson"
)

// BenchmarkCheckCall is the decision on one call, nothing run: the path
// every call takes, for a tool without aliases or budgets.
func BenchmarkCheckCall(b *testing.B) {
	tool := &Tool{Name: "w", Safe: true, InputSchema: []byte(`{"type":"object","properties":{"city":{"type":"string"},"unit":{"enum":["celsius","fahrenheit"]}},"required":["city"]}`)}
	x := NewExecutor(execSet{"w": tool}, ExecOptions{Environ: []string{}})
	c := Call{ID: "c1", Name: "w", Arguments: []byte(`{"city":"Paris","unit":"celsius"}`)}
	for b.Loop() {
		if v := x.Check(c); v.Refusal != nil {
			b.Fatal(v.Refusal.Content)
		}
	}
}

// BenchmarkCheckCallAliases is BenchmarkCheckCall for a tool with
// aliases, and a call that uses two of them.
func BenchmarkCheckCallAliases(b *testing.B) {
	tool := &Tool{Name: "w", Safe: true, InputSchema: []byte(`{"type":"object","properties":{"city":{"type":"string"},"unit":{"enum":["celsius","fahrenheit"]}},"required":["city"]}`)}
	tool.Aliases = parseAliases(gjson.Parse(`{"loc":"city"}`), gjson.Parse(`{"/unit":{"C":"celsius"}}`), func(f string, a ...any) { b.Fatalf(f, a...) })
	x := NewExecutor(execSet{"w": tool}, ExecOptions{Environ: []string{}})
	c := Call{ID: "c1", Name: "w", Arguments: []byte(`{"loc":"Paris","unit":"C"}`)}
	for b.Loop() {
		if v := x.Check(c); v.Refusal != nil {
			b.Fatal(v.Refusal.Content)
		}
	}
}
