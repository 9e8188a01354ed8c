package run

import (
	"slices"

	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
	"github.com/toolcall/toolcall/tools/redact"
	"github.com/toolcall/toolcall/tools/schema"
)

// redactEvent is e with every string it holds redacted by r: each string
// field, the strings of its lists, and its JSON values (arguments,
// details, usage, parts) as r.JSON redacts them; e itself when nothing
// changed, else a copy (e is the caller's). The numbers the library
// counts or measures are left as they are; a number inside a JSON value
// is redacted as r.JSON does. An event of a type not known here is
// written and redacted as a line, so that nothing passes unredacted.
func redactEvent(r *redact.Redactor, e event.Event) event.Event {
	s := scrub{r: r}
	switch e := e.(type) {
	case *event.TextEvent:
		c := *e
		s.bytes(&c.Content)
		s.str(&c.Format)
		s.str(&c.File)
		return pick(&s, e, &c)
	case *event.ParseError:
		c := *e
		s.str(&c.Error)
		s.bytes(&c.Raw)
		s.str(&c.Format)
		s.str(&c.File)
		return pick(&s, e, &c)
	case *tools.CallEvent:
		c := *e
		s.call(&c.Call)
		s.str(&c.NoSchemaMode)
		eachOf(&s, &c.Coerced, func(s *scrub, co *schema.Coercion) {
			s.str(&co.Pointer)
			s.str(&co.From)
			s.json(&co.To)
		})
		eachOf(&s, &c.Normalized, func(s *scrub, n *tools.Normalization) {
			s.str(&n.Pointer)
			s.str(&n.From)
			if n.Pointer == "" {
				s.str(&n.To)
			} else { // a JSON value
				if to := string(r.JSON([]byte(n.To))); to != n.To {
					n.To, s.changed = to, true
				}
			}
		})
		s.strs(&c.RewrittenBy)
		return pick(&s, e, &c)
	case *tools.Observation:
		c := *e
		s.str(&c.ID)
		s.str(&c.Name)
		s.str(&c.Content)
		if e.Error != nil {
			te, inner := *e.Error, scrub{r: r}
			k := string(te.Kind)
			inner.str(&k)
			te.Kind = tools.ErrorKind(k)
			inner.str(&te.Message)
			inner.json(&te.Details)
			if inner.changed {
				c.Error, s.changed = ptr(te), true
			}
		}
		s.str(&c.Status)
		s.str(&c.Signal)
		s.str(&c.Ref)
		s.json(&c.Parts)
		s.json(&c.Structured)
		eachOf(&s, &c.Attempts, func(s *scrub, a *tools.Attempt) {
			s.str(&a.Status)
			k := string(a.Kind)
			s.str(&k)
			a.Kind = tools.ErrorKind(k)
			s.str(&a.Signal)
		})
		s.strs(&c.RewrittenBy)
		return pick(&s, e, &c)
	case *event.Message:
		c := *e
		s.str(&c.Content)
		s.str(&c.API)
		return pick(&s, e, &c)
	case *event.Assistant:
		c := *e
		s.str(&c.Content)
		eachOf(&s, &c.ToolCalls, func(s *scrub, tc *tools.Call) {
			s.str(&tc.ID)
			s.str(&tc.Name)
			s.bytes(&tc.Arguments) // written as a JSON string: the server's text
		})
		s.str(&c.Model)
		s.json(&c.Usage)
		return pick(&s, e, &c)
	case *event.Stop:
		c := *e
		s.str(&c.Reason)
		s.str(&c.Error)
		return pick(&s, e, &c)
	case *event.Step:
		c := *e
		eachOf(&s, &c.Calls, func(s *scrub, sc *event.StepCall) {
			s.str(&sc.ID)
			s.str(&sc.Name)
			s.str(&sc.Status)
		})
		return pick(&s, e, &c)
	case *event.Reflection:
		c := *e
		eachOf(&s, &c.Calls, func(s *scrub, f *event.Finding) {
			s.str(&f.ID)
			s.str(&f.Name)
			s.str(&f.Status)
			s.str(&f.Finding)
			s.str(&f.NextAction)
		})
		return pick(&s, e, &c)
	case *event.Summary:
		c := *e
		s.str(&c.Request)
		s.str(&c.Reason)
		s.str(&c.File)
		s.str(&c.Error)
		return pick(&s, e, &c)
	case *event.Batch:
		c := *e
		eachOf(&s, &c.Counts, func(s *scrub, n *event.Count) { s.str(&n.Key) })
		eachOf(&s, &c.Phases, func(s *scrub, p *event.Phase) { s.str(&p.Key) })
		return pick(&s, e, &c)
	case *event.Check:
		c := *e
		s.str(&c.File)
		s.str(&c.Status)
		s.strs(&c.Ignored)
		s.str(&c.Difference)
		s.str(&c.Error)
		return pick(&s, e, &c)
	case *event.OtherEvent:
		c := *e
		s.json(&c.Line)
		return pick(&s, e, &c)
	}
	line := e.AppendJSON(nil)
	return &event.OtherEvent{Type: e.EventType(), Line: r.JSON(line)}
}

// scrub redacts fields in place, in a copy of an event, and notes
// whether anything changed.
type scrub struct {
	r       *redact.Redactor
	changed bool
}

func (s *scrub) str(p *string) {
	if v := s.r.String(*p); v != *p {
		*p, s.changed = v, true
	}
}

func (s *scrub) bytes(p *[]byte) {
	if v := s.r.Bytes(*p); !same(v, *p) {
		*p, s.changed = v, true
	}
}

func (s *scrub) json(p *[]byte) {
	if v := s.r.JSON(*p); !same(v, *p) {
		*p, s.changed = v, true
	}
}

func (s *scrub) call(c *tools.Call) {
	s.str(&c.ID)
	s.str(&c.Name)
	s.json(&c.Arguments)
	s.str(&c.Format)
	s.strs(&c.Repairs)
}

// strs redacts a list of strings, copied before it is changed.
func (s *scrub) strs(p *[]string) {
	for i, v := range *p {
		if red := s.r.String(v); red != v {
			out := slices.Clone(*p)
			out[i] = red
			for j := i + 1; j < len(out); j++ {
				out[j] = s.r.String(out[j])
			}
			*p, s.changed = out, true
			return
		}
	}
}

// pick is the event to hand on: orig, or a copy of c on the heap when
// anything changed (c itself stays on the stack).
func pick[T any](s *scrub, orig event.Event, c *T) event.Event {
	if !s.changed {
		return orig
	}
	return any(ptr(*c)).(event.Event)
}

// eachOf redacts each element of a list with f, the list copied before
// an element of it is changed.
func eachOf[T any](s *scrub, list *[]T, f func(*scrub, *T)) {
	cloned := false
	for i := range *list {
		el := (*list)[i]
		inner := scrub{r: s.r}
		f(&inner, &el)
		if inner.changed {
			if !cloned {
				*list, cloned = slices.Clone(*list), true
			}
			(*list)[i], s.changed = el, true
		}
	}
}

// same reports whether a and b are the same bytes in memory: what the
// redactor returns when it changed nothing.
func same(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
