package run

import (
	"bytes"
	"strings"

	"github.com/toolcall/toolcall/catalog"
)

// Budgets in a run: a tool whose budget is spent (a sidecar's max_calls,
// or --max-calls for every tool) is no longer offered from the next turn
// on, in the system text or the request's tools, and a call to it is
// refused by the executor (kind permission). The run stops with
// StopCallBudget when a turn had a call refused for a budget and no tool
// is left to offer: the model cannot go on calling, and did not answer.

// offers is what the run offers the model, kept so that a tool whose
// budget is spent can be taken out of the next request (tools.Executor.Spent).
type offers struct {
	picked  []catalog.Ranked // offered now
	section string           // their rendering at the end of the system text (prompt style)
	refused int              // budget refusals seen so far
	active  bool             // some budget applies to an offered tool
}

// offer records what prepare offered.
func (l *loop) offer(picked []catalog.Ranked, section string) {
	l.offers = offers{picked: picked, section: section}
	for _, r := range picked {
		l.offers.active = l.offers.active || l.exec.Budgeted(r.Tool)
	}
}

// reoffer takes the tools whose budget is spent out of req and the system
// text for the next turn. It returns StopCallBudget when the turn just
// taken had a call refused for its budget and nothing is left to offer,
// else "".
func (l *loop) reoffer(req *Request) (string, error) {
	o := &l.offers
	if !o.active {
		return "", nil
	}
	var left []catalog.Ranked
	for _, r := range o.picked {
		if !l.exec.Spent(r.Tool) {
			left = append(left, r)
		}
	}
	refusedNow := l.exec.BudgetRefusals() > o.refused
	o.refused = l.exec.BudgetRefusals()
	if len(left) < len(o.picked) {
		if err := l.render(req, left); err != nil {
			return "", err
		}
	}
	if refusedNow && len(left) == 0 {
		return StopCallBudget, nil
	}
	return "", nil
}

// render makes req and the system text offer picked, as prepare does.
func (l *loop) render(req *Request, picked []catalog.Ranked) error {
	opts := l.opts
	l.offers.picked = picked
	var b bytes.Buffer
	if opts.Native {
		if err := catalog.Render(&b, opts.Catalog, picked, catalog.RenderOptions{Format: catalog.FormatOpenAI}); err != nil {
			return err
		}
		req.Tools, req.ToolChoice = nil, ""
		if len(picked) > 0 {
			req.Tools, req.ToolChoice = bytes.TrimSpace(b.Bytes()), opts.ToolChoice
		}
		return nil
	}
	if err := catalog.Render(&b, opts.Catalog, picked, catalog.RenderOptions{Format: catalog.FormatPrompt, Style: opts.Style}); err != nil {
		return err
	}
	section := strings.TrimRight(b.String(), "\n")
	if sys := &l.msgs[0]; sys.Role == "system" && strings.HasSuffix(sys.Content, l.offers.section) {
		sys.Content = strings.TrimSuffix(sys.Content, l.offers.section) + section
		l.offers.section = section
	}
	if opts.Constrain {
		req.Schema = protocolSchema(picked)
	}
	return nil
}
