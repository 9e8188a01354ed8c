package mcpserve

import "testing"

// topLevel finds the id of the top object whatever comes before it, and
// however the line is cut into pieces; ids inside params are not it.
func TestTopLevelFindsTheID(t *testing.T) {
	for _, c := range []struct {
		line, id string
		method   bool
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}`, `7`, true},
		{`{"method":"tools/call","params":{"id":1,"x":["id",{"id":2}]},"id":"a\"}b"}`, `"a\"}b"`, true},
		{`{"params":{"text":"\"id\":9,"}, "id" : -1.5e3 }`, `-1.5e3`, false},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"id":3}}`, ``, true},
		{`{"id":null,"method":"x"}`, ``, true},
		{`{"id":{"no":1},"method":"x"}`, ``, true},
		{`{"identity":5,"method":"x"}`, ``, true},
		{`[1,2,3]`, ``, false},
	} {
		for _, size := range []int{1, 3, 1 << 20} {
			var sc topLevel
			for i := 0; i < len(c.line); i += size {
				sc.scan([]byte(c.line[i:min(i+size, len(c.line))]))
			}
			if string(sc.id) != c.id || sc.hasMethod != c.method {
				t.Errorf("%s in pieces of %d: id %q, method %v; want %q, %v", c.line, size, sc.id, sc.hasMethod, c.id, c.method)
			}
		}
	}
}
