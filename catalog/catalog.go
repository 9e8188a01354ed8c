package catalog

import (
	"sort"

	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/mcpclient"
)

// Catalog is every tool found in a set of tool directories, available or
// not, sorted by name. It is read-only once loaded and safe for concurrent
// use.
type Catalog struct {
	all    []*tools.Tool          // sorted by name
	byName map[string]*tools.Tool // every tool, by name
	// alias maps the provider-safe name given to a tool whose own name
	// OpenAI or Anthropic would reject back to the tool (see names.go).
	alias map[string]*tools.Tool
	// provider is the reverse: a tool's provider-safe name, when it differs.
	provider map[string]string
	// servers are the MCP servers whose tools are in the catalog; Close
	// stops them.
	servers []*mcpclient.Server
	// whole is the catalog this one is a part of (Part), nil for a
	// catalog of its own.
	whole tools.ToolSet
	// seen is each server's count of changes (mcpclient.Server.Changes) when
	// its tools were listed; changed hears of a change (see Changed);
	// load is what Relist lists them again with.
	seen    []int64
	changed chan struct{}
	load    LoadOptions
}

// New makes a catalog of ts, which must have distinct names.
func New(ts []*tools.Tool) *Catalog {
	c := &Catalog{all: append([]*tools.Tool(nil), ts...), byName: make(map[string]*tools.Tool, len(ts))}
	sort.Slice(c.all, func(i, j int) bool { return c.all[i].Name < c.all[j].Name })
	for _, t := range c.all {
		c.byName[t.Name] = t
	}
	c.mapNames()
	return c
}

// All returns every tool, available or not, sorted by name. The caller must
// not change the slice.
func (c *Catalog) All() []*tools.Tool { return c.all }

// Available returns the tools that can run on this machine, sorted by name.
func (c *Catalog) Available() []*tools.Tool {
	out := make([]*tools.Tool, 0, len(c.all))
	for _, t := range c.all {
		if t.Unavailable == "" {
			out = append(out, t)
		}
	}
	return out
}

// Lookup returns the tool called name, which may also be the provider-safe
// name the catalog gave it for OpenAI or Anthropic.
func (c *Catalog) Lookup(name string) (*tools.Tool, bool) {
	if t, ok := c.byName[name]; ok {
		return t, true
	}
	t, ok := c.alias[name]
	return t, ok
}

// Names returns the name of every tool, sorted.
func (c *Catalog) Names() []string {
	names := make([]string, len(c.all))
	for i, t := range c.all {
		names[i] = t.Name
	}
	return names
}

// ParamType returns the JSON Schema type of a tool's top-level parameter,
// or "" when the tool or the type is unknown: the lookup parse uses to type
// the bare-text values of XML-style calls.
func (c *Catalog) ParamType(tool, param string) string {
	t, ok := c.Lookup(tool)
	if !ok {
		return ""
	}
	return t.ParamType(param)
}
