package tools

import (
	"github.com/toolcall/toolcall/tools/redact"
	"github.com/toolcall/toolcall/tools/schema"
)

// What the executor redacts: the types of this package, through
// package redact, which knows only strings and JSON.

// serverSecrets are the passwords in the URLs of the MCP servers that run
// tools of set, as written and decoded: a server that echoes its URL, or
// a tool that reads it, must not show them.
func serverSecrets(set ToolSet) []string {
	var out []string
	seen := map[Server]bool{}
	for _, name := range set.Names() {
		t, ok := set.Lookup(name)
		if !ok || t.Server == nil || seen[t.Server] {
			continue
		}
		seen[t.Server] = true
		out = append(out, t.Server.Secrets()...)
	}
	return out
}

// redactResult returns res with its secrets replaced: in Content, in
// every string (keys included) of Structured, in the text of Parts
// (their base64 payloads looked at as what they encode: Redactor.Parts),
// and in the problems of a *schema.OutputError, which quote the result.
func redactResult(r *redact.Redactor, res Result) Result {
	res.Content = r.String(res.Content)
	res.Structured = r.JSON(res.Structured)
	res.Parts = r.Parts(res.Parts)
	if e, ok := res.SchemaErr.(*schema.OutputError); ok && e.Err == nil {
		c := *e
		c.Problems = make([]string, len(e.Problems))
		for i, p := range e.Problems {
			c.Problems[i] = r.String(p)
		}
		res.SchemaErr = &c
	}
	return res
}

// redactObservation returns o with secrets replaced in everything it
// says: its id and name (as the model wrote them), its content, and its
// error's message and details. Parts and Structured come only from a
// tool's result, which redactResult redacts (keeping base64 payloads
// whole), and are kept as they are.
func redactObservation(r *redact.Redactor, o Observation) Observation {
	o.ID, o.Name, o.Content = r.String(o.ID), r.String(o.Name), r.String(o.Content)
	if e := o.Error; e != nil {
		c := *e
		c.Message = r.String(e.Message)
		c.Details = r.JSON(e.Details)
		o.Error = &c
	}
	return o
}
