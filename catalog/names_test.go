package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/toolcall/toolcall/tools"
)

func named(names ...string) []*tools.Tool {
	ts := make([]*tools.Tool, len(names))
	for i, n := range names {
		ts[i] = &tools.Tool{Name: n}
	}
	return ts
}

func TestProviderName(t *testing.T) {
	long := strings.Repeat("x", 60) + ".long"
	long2 := strings.Repeat("x", 60) + ".other"
	validLong := strings.Repeat("y", 70)
	limit := strings.Repeat("z", 63) + "."
	c := New(named(
		"get_weather", "kebab-name", "math.factorial",
		"a b", "a.b", "a_b", // two aliases that want a real name
		"météo", "天気", "天気?",
		long, long2, validLong,
		limit, strings.Repeat("z", 63)+"_", // an alias at 64 bytes that collides
	))
	want := map[string]string{
		"get_weather":    "get_weather",
		"kebab-name":     "kebab-name",
		"math.factorial": "math_factorial",
		"a_b":            "a_b",
		"a b":            "a_b_2", // sorted first: " " < "."
		"a.b":            "a_b_3",
		"météo":          "m_t_o",
		"天気":             "__",
		"天気?":            "___",
		limit:            strings.Repeat("z", 62) + "_2",
	}
	for name, w := range want {
		tool, _ := c.Lookup(name)
		if got := c.ProviderName(tool); got != w {
			t.Errorf("ProviderName(%q) = %q, want %q", name, got, w)
		}
	}

	seen := map[string]string{}
	for _, tool := range c.All() {
		p := c.ProviderName(tool)
		if !providerNameRE.MatchString(p) {
			t.Errorf("ProviderName(%q) = %q, which providers reject", tool.Name, p)
		}
		if other, dup := seen[p]; dup {
			t.Errorf("%q and %q both map to %q", other, tool.Name, p)
		}
		seen[p] = tool.Name
		if back, ok := c.Lookup(p); !ok || back != tool {
			t.Errorf("Lookup(%q) does not lead back to %q", p, tool.Name)
		}
	}

	// Long names: cut to 64 bytes, ending in a hash of the full name.
	for _, name := range []string{long, long2, validLong} {
		tool, _ := c.Lookup(name)
		p := c.ProviderName(tool)
		if len(p) != 64 || p[55] != '_' || strings.Trim(p[56:], "0123456789abcdef") != "" {
			t.Errorf("ProviderName(%q) = %q, want 55 bytes, _ and 8 hex digits", name, p)
		}
	}
}

// TestProviderNameDeterministic: aliases depend on the set of names only,
// not on the order the tools were found in or on other tools' aliases.
func TestProviderNameDeterministic(t *testing.T) {
	names := []string{"z.y", "z_y", "a.b", "a_b", "c d", "c.d"}
	c1 := New(named(names...))
	rev := append([]string(nil), names...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	c2 := New(named(rev...))
	for _, n := range names {
		t1, _ := c1.Lookup(n)
		t2, _ := c2.Lookup(n)
		if p1, p2 := c1.ProviderName(t1), c2.ProviderName(t2); p1 != p2 {
			t.Errorf("%q maps to %q and to %q depending on order", n, p1, p2)
		}
	}
}

// TestProviderNameBFCL maps every function name of the BFCL data: over a
// thousand have dots, which OpenAI and Anthropic reject.
func TestProviderNameBFCL(t *testing.T) {
	const dir = "../testdata/bfcl"
	files, _ := filepath.Glob(filepath.Join(dir, "BFCL_v4_*.json"))
	if len(files) == 0 {
		t.Fatalf("no BFCL data in %s", dir)
	}
	set := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			gjson.Get(line, "function.#.name").ForEach(func(_, n gjson.Result) bool {
				set[n.String()] = true
				return true
			})
		}
	}
	var names []string
	dotted := 0
	for n := range set {
		names = append(names, n)
		if strings.Contains(n, ".") {
			dotted++
		}
	}
	if dotted < 100 {
		t.Fatalf("only %d dotted names in %d; is the data complete?", dotted, len(names))
	}
	c := New(named(names...))
	seen := map[string]bool{}
	for _, tool := range c.All() {
		p := c.ProviderName(tool)
		if !providerNameRE.MatchString(p) || seen[p] {
			t.Errorf("%q -> %q: rejected by providers or not unique", tool.Name, p)
		}
		seen[p] = true
		if back, ok := c.Lookup(p); !ok || back != tool {
			t.Errorf("Lookup(%q) does not lead back to %q", p, tool.Name)
		}
	}
}
