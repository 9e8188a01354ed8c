// Command get_weather answers with canned weather for a city, so the demo
// and the tests need no network and give the same answer every time.
// Arguments: {"city": "Paris", "unit": "celsius" | "fahrenheit"}; the
// result is JSON.
package main

import (
	"hash/fnv"
	"math"
	"strings"

	"github.com/toolcall/toolcall/testdata/tools/src/internal/tool"
)

type args struct {
	City string `json:"city"`
	Unit string `json:"unit"`
}

type weather struct {
	City        string  `json:"city"`
	Temperature float64 `json:"temperature"`
	Unit        string  `json:"unit"`
	Conditions  string  `json:"conditions"`
}

// canned holds a few cities the demo mentions, in degrees Celsius.
var canned = map[string]weather{
	"paris":  {Temperature: 18, Conditions: "light rain"},
	"lisbon": {Temperature: 21, Conditions: "sunny"},
	"tokyo":  {Temperature: 16, Conditions: "cloudy"},
}

var conditions = []string{"sunny", "partly cloudy", "cloudy", "light rain", "windy"}

func main() {
	var a args
	if err := tool.ReadArgs(&a); err != nil {
		tool.Fail(2, "%v", err)
	}
	city := strings.TrimSpace(a.City)
	if city == "" {
		tool.Fail(2, `missing argument "city", e.g. {"city": "Paris"}`)
	}
	w, ok := canned[strings.ToLower(city)]
	if !ok {
		// Any other city gets weather derived from its name: made up,
		// but the same on every call.
		h := fnv.New32a()
		h.Write([]byte(strings.ToLower(city)))
		n := h.Sum32()
		w = weather{Temperature: float64(5 + n%25), Conditions: conditions[n/25%uint32(len(conditions))]}
	}
	w.City = city
	switch a.Unit {
	case "", "celsius":
		w.Unit = "celsius"
	case "fahrenheit":
		w.Unit = "fahrenheit"
		w.Temperature = math.Round(w.Temperature*9/5 + 32)
	default:
		tool.Fail(2, `unknown unit %q; use "celsius" or "fahrenheit"`, a.Unit)
	}
	tool.WriteJSON(w)
}
