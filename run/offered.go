package run

import (
	"github.com/toolcall/toolcall/catalog"
	"github.com/toolcall/toolcall/tools"
)

// offeredSet is what the calls of a run are checked against: the catalog,
// and under --pick only the tools the model was offered. The model knows
// no other tool: a call to a catalog tool it was not shown is a name it
// guessed, with arguments it guessed, so the tool counts as not available
// here, and the observation lists the tools it was offered (the call is
// answered as a call to a tool that exists but cannot run, an
// unknown_tool error, not a permission one: no policy forbids it).
type offeredSet struct {
	tools.ToolSet
	offered map[string]bool // nil: every tool
}

// offer limits the calls to picked.
func (s *offeredSet) offer(picked []catalog.Ranked) {
	s.offered = make(map[string]bool, len(picked))
	for _, r := range picked {
		s.offered[r.Tool.Name] = true
	}
}

func (s *offeredSet) Lookup(name string) (*tools.Tool, bool) {
	t, ok := s.ToolSet.Lookup(name)
	if !ok || s.offered == nil || s.offered[t.Name] || t.Unavailable != "" {
		return t, ok
	}
	// A stand-in: a call to a tool that is not available goes no further
	// than its name.
	return &tools.Tool{Name: t.Name, Description: t.Description,
		Unavailable: "it is not among the tools offered for this request (--pick)"}, true
}

func (s *offeredSet) Names() []string {
	all := s.ToolSet.Names()
	if s.offered == nil {
		return all
	}
	out := make([]string, 0, len(s.offered))
	for _, n := range all {
		if s.offered[n] {
			out = append(out, n)
		}
	}
	return out
}

// Whole is the set it limits: every tool in use, offered or not, is kept
// out of the tools' reach (tools.WholeSet), whatever the model was shown.
func (s *offeredSet) Whole() tools.ToolSet { return s.ToolSet }
