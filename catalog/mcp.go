package catalog

import (
	"fmt"
	"sync"

	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/mcpclient"
)

// serverTools starts the MCP servers, all at once, and returns their
// tools in the servers' order. A server that fails to start or list is
// left out with a warning, and so is a tool whose name another tool has
// already: the directories' tools come first, then the servers' in order.
func serverTools(servers []*mcpclient.Server, have []*tools.Tool, opts LoadOptions) []*tools.Tool {
	if len(servers) == 0 {
		return nil
	}
	type listed struct {
		ts    []*tools.Tool
		warns []string
		err   error
	}
	got := make([]listed, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() {
			got[i].ts, got[i].warns, got[i].err = s.Tools()
		})
	}
	wg.Wait()
	taken := map[string]string{}
	for _, t := range have {
		taken[t.Name] = t.File
	}
	var out []*tools.Tool
	for i, s := range servers {
		warn(opts, got[i].warns...)
		if got[i].err != nil {
			warn(opts, fmt.Sprintf("its tools are left out: %v", got[i].err))
			continue
		}
		for _, t := range got[i].ts {
			if first, ok := taken[t.Name]; ok {
				warn(opts, fmt.Sprintf("MCP server %s: tool %q is left out: the name is taken by %s; set \"prefix\" in its mcp_server", s.Name, t.Name, first))
				continue
			}
			taken[t.Name] = s.Name
			out = append(out, t)
		}
	}
	return out
}

// Close stops the MCP servers the catalog started; their tools cannot be
// called after it. A catalog without servers needs no Close.
func (c *Catalog) Close() {
	for _, s := range c.servers {
		s.Close()
	}
}

// Servers lists the MCP servers of the catalog, those whose tools were
// left out too: the files they run are protected as the tools' are
// (tools.ServerSet).
func (c *Catalog) Servers() []tools.Server {
	out := make([]tools.Server, len(c.servers))
	for i, s := range c.servers {
		out[i] = s
	}
	return out
}

// Part is a catalog of some of c's tools (mcp serve --tag) whose Whole is
// c: the tools it runs are kept out of the directories of every tool and
// server of c, not only of those it holds (tools.WholeSet).
func (c *Catalog) Part(ts []*tools.Tool) *Catalog {
	p := New(ts)
	p.whole = c.Whole()
	return p
}

// Whole is the catalog c is a part of, or c.
func (c *Catalog) Whole() tools.ToolSet {
	if c.whole != nil {
		return c.whole
	}
	return c
}

// Changed receives when an MCP server of the catalog said its tools
// changed (notifications/tools/list_changed); Relist then gives the
// catalog as it is now. Changes close together may come as one. A
// catalog without servers never receives.
func (c *Catalog) Changed() <-chan struct{} { return c.changed }

// Relist is the catalog again with its MCP servers' tools as they are
// now: a server that said its tools changed is asked for them again (the
// others are not), on the session it has. The directories are not read
// again. The new catalog shares c's servers: close one of the two, not
// both.
func (c *Catalog) Relist() *Catalog {
	if len(c.servers) == 0 {
		return c
	}
	var ts []*tools.Tool
	for _, t := range c.all {
		if t.Server == nil {
			ts = append(ts, t)
		}
	}
	seen := changes(c.servers)
	ts = append(ts, serverTools(c.servers, ts, c.load)...)
	n := New(ts)
	n.servers, n.seen, n.changed, n.load = c.servers, seen, c.changed, c.load
	return n
}

// changes reads each server's count of changes, before its tools are
// listed.
func changes(servers []*mcpclient.Server) []int64 {
	out := make([]int64, len(servers))
	for i, s := range servers {
		out[i] = s.Changes()
	}
	return out
}

// stale reports whether a server said its tools changed since the
// catalog listed them.
func (c *Catalog) stale() bool {
	for i, s := range c.servers {
		if s.Changes() != c.seen[i] {
			return true
		}
	}
	return false
}

// Live is a ToolSet that follows its catalog's MCP servers: once one said
// its tools changed, the next lookup lists them again (Relist), so calls
// that come later are checked against the tools as they are. For a
// stream of calls (exec, validate, run's turns), which would otherwise
// keep the catalog of its start. Safe for concurrent use.
type Live struct {
	mu  sync.Mutex
	cur *Catalog
}

// NewLive follows c. The catalogs it lists share c's servers: close c.
func NewLive(c *Catalog) *Live { return &Live{cur: c} }

// Catalog is the catalog as it is now.
func (l *Live) Catalog() *Catalog {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cur.stale() {
		l.cur = l.cur.Relist()
	}
	return l.cur
}

// Lookup finds a tool of the catalog as it is now.
func (l *Live) Lookup(name string) (*tools.Tool, bool) { return l.Catalog().Lookup(name) }

// Names lists the tools of the catalog as it is now.
func (l *Live) Names() []string { return l.Catalog().Names() }

// Servers lists the MCP servers of the catalog.
func (l *Live) Servers() []tools.Server { return l.Catalog().Servers() }

// Whole is the catalog as it is now: a Live is never a part.
func (l *Live) Whole() tools.ToolSet { return l }
