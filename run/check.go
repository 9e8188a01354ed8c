package run

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/internal/jsonw"
	"github.com/toolcall/toolcall/tools"
	"github.com/toolcall/toolcall/tools/event"
)

// VolatileFields are the top-level event fields a check ignores: they
// change from run to run with the same behaviour (README.md, Events): the
// durations and the server's usage, and a step event's phase timings and
// tokens.
var VolatileFields = []string{"duration_ms", "usage", "model_ms", "parse_ms", "validate_ms", "exec_ms", "tokens"}

// checkShown is how many differences a diff spells out; the counts in its
// first line cover them all.
const checkShown = 10

// checkValueMax is how much of a differing value a diff shows.
const checkValueMax = 100

// checkAlignMax bounds the alignment table (events × events) of the part
// where two transcripts differ; beyond it events are paired by position.
const checkAlignMax = 1 << 22

// CheckIgnore is what a check leaves out besides VolatileFields: what
// legitimately changes between a recording and its replay (run --check
// --ignore). A check names each item in its output, so that nothing is
// ignored silently.
type CheckIgnore struct {
	// System leaves out the content of the system event: the prompt,
	// which changes with the tools' descriptions.
	System bool
	// Observation are JSON pointers (RFC 6901) into tool_observation
	// events, such as /structured_content/time: a value that changes
	// from run to run, as a timestamp does. Array elements are named by
	// their index, and a pointer reaches into a string that holds JSON,
	// as the content of a tool that prints JSON does: /content/time.
	Observation []string
}

// IgnoreSystem is the --ignore value that leaves out the system prompt.
const IgnoreSystem = "system"

// ParseIgnore reads the values of --ignore: "system", or a JSON pointer
// into tool_observation events.
func ParseIgnore(values []string) (CheckIgnore, error) {
	var ig CheckIgnore
	for _, v := range values {
		switch {
		case v == IgnoreSystem:
			ig.System = true
		case strings.HasPrefix(v, "/") && len(v) > 1:
			if _, err := pointerTokens(v); err != nil {
				return ig, err
			}
			if !slices.Contains(ig.Observation, v) {
				ig.Observation = append(ig.Observation, v)
			}
		default:
			return ig, fmt.Errorf("%q is neither %s (the system prompt) nor a JSON pointer into observations, such as /structured_content/time", v, IgnoreSystem)
		}
	}
	return ig, nil
}

// Items lists what ig leaves out, as --ignore takes it.
func (ig CheckIgnore) Items() []string {
	var items []string
	if ig.System {
		items = append(items, IgnoreSystem)
	}
	return append(items, ig.Observation...)
}

// pointerTokens splits a JSON pointer into its reference tokens,
// unescaping ~1 and ~0.
func pointerTokens(p string) ([]string, error) {
	tokens := strings.Split(p[1:], "/")
	for i, t := range tokens {
		for j := 0; j < len(t); j++ {
			if t[j] == '~' && (j+1 == len(t) || t[j+1] != '0' && t[j+1] != '1') {
				return nil, fmt.Errorf("%q is not a JSON pointer: ~ must be followed by 0 or 1", p)
			}
		}
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return tokens, nil
}

// omitTree is what the canonical form of an event leaves out: a key
// mapped to nil is dropped with its value; a key mapped to a tree has
// that tree left out of its value. Array elements are keyed by index.
type omitTree map[string]omitTree

// add leaves out the value at the path tokens.
func (t omitTree) add(tokens []string) {
	for i, tok := range tokens {
		child, ok := t[tok]
		switch {
		case ok && child == nil:
			return // all of it is left out already
		case i == len(tokens)-1:
			t[tok] = nil
			return
		case !ok:
			child = omitTree{}
			t[tok] = child
		}
		t = child
	}
}

// drops reports whether t leaves out key k whole.
func (t omitTree) drops(k string) bool {
	child, ok := t[k]
	return ok && child == nil
}

// comparison is how a check compares two transcripts: what it leaves out
// of each event.
type comparison struct {
	top      []string // top-level fields left out of every event
	ignore   CheckIgnore
	pointers [][]string // ignore.Observation, split
}

func newComparison(top []string, ig CheckIgnore) *comparison {
	c := &comparison{top: top, ignore: ig}
	for _, p := range ig.Observation {
		tokens, err := pointerTokens(p)
		if err != nil {
			panic(errors.New("run: CheckIgnore not made by ParseIgnore: " + err.Error())) // a bug
		}
		c.pointers = append(c.pointers, tokens)
	}
	return c
}

// omit is what the canonical form of ev leaves out.
func (c *comparison) omit(ev gjson.Result) omitTree {
	t := omitTree{}
	for _, k := range c.top {
		t[k] = nil
	}
	switch ev.Get("type").Str {
	case event.TypeSystem:
		if c.ignore.System {
			t["content"] = nil
		}
	case tools.TypeToolObservation:
		for _, p := range c.pointers {
			t.add(p)
		}
	}
	return t
}

// Check compares a recorded transcript (want) with a new one (got), event
// by event, ignoring VolatileFields and the order of keys. It returns ok
// when they match, and otherwise a readable, deterministic diff: a summary
// line with the counts of changed, missing and extra events, then the
// first differences, each with its line number(s), the event's type and
// id, and the fields that differ.
//
// Events are aligned as a text diff aligns lines, so one extra event in the
// middle shows as one extra event, not as a change of every event after it.
// A changed event is a missing and an extra one of the same type at the
// same place.
func Check(want, got [][]byte) (diff string, ok bool) {
	return checkDiff(want, got, CheckIgnore{}, checkShown)
}

// CheckIgnoring is Check leaving out what ig names too; the diff's last
// line names it.
func CheckIgnoring(want, got [][]byte, ig CheckIgnore) (diff string, ok bool) {
	return checkDiff(want, got, ig, checkShown)
}

// checkDiff is CheckIgnoring spelling out at most shown differences.
func checkDiff(want, got [][]byte, ig CheckIgnore, shown int) (diff string, ok bool) {
	ignored := VolatileFields
	if !anyHasField(want, addedRepairs) {
		// Recorded before calls said what repair changed: what they say
		// now is new, not a difference.
		ignored = append(slices.Clip(ignored), addedRepairs)
	}
	cmp := newComparison(ignored, ig)
	wk := canonicalEvents(want, cmp)
	// Lines a recording may predate: a refused call's (kept since calls
	// said "validated": false), and the step events of the ledger. What
	// it predates is new, not a difference; kept maps back to got's lines.
	predates := !anyRefusedCall(want)
	predatesSteps := !anyOfType(want, event.TypeStep)
	compared, kept := got, []int(nil)
	if predates || predatesSteps {
		compared, kept = without(got, func(ev []byte) bool {
			return predates && isRefusedCall(ev) || predatesSteps && isType(ev, event.TypeStep)
		})
	}
	gk := canonicalEvents(compared, cmp)
	items := alignEvents(wk, gk)
	if len(items) == 0 {
		return "", true
	}
	for i := range items {
		if items[i].got >= 0 && kept != nil {
			items[i].got = kept[items[i].got]
		}
	}

	var changed, missing, extra int
	for _, it := range items {
		switch {
		case it.want >= 0 && it.got >= 0:
			changed++
		case it.want >= 0:
			missing++
		default:
			extra++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the transcripts differ: %s changed, %d missing, %d extra (want %s, got %d)\n",
		countOf(changed, "event"), missing, extra, countOf(len(want), "event"), len(got))
	for n, it := range items {
		if n == shown {
			fmt.Fprintf(&b, "… and %d more difference%s not shown\n", len(items)-n, plural(len(items)-n))
			break
		}
		switch {
		case it.want >= 0 && it.got >= 0:
			lines := fmt.Sprintf("line %d", it.want+1)
			if it.want != it.got {
				lines = fmt.Sprintf("want line %d, got line %d", it.want+1, it.got+1)
			}
			fmt.Fprintf(&b, "%s: %s changed\n", lines, eventLabel(want[it.want]))
			fieldDiff(&b, want[it.want], got[it.got], cmp)
		case it.want >= 0:
			fmt.Fprintf(&b, "want line %d: %s missing\n    %s\n", it.want+1, eventLabel(want[it.want]), clip.Head(string(want[it.want]), 2*checkValueMax))
		default:
			fmt.Fprintf(&b, "got line %d: %s extra\n    %s\n", it.got+1, eventLabel(got[it.got]), clip.Head(string(got[it.got]), 2*checkValueMax))
		}
	}
	b.WriteString("(duration_ms and usage are not compared")
	if !predatesSteps {
		b.WriteString(", nor the step events' timings and tokens")
	}
	if len(ignored) > len(VolatileFields) && anyHasField(got, addedRepairs) {
		b.WriteString(`; nor "repairs", which the recording predates`)
	}
	if predates && anyRefusedCall(got) {
		b.WriteString(`; nor the lines of refused calls ("validated": false), which the recording predates`)
	}
	if predatesSteps && anyOfType(got, event.TypeStep) {
		b.WriteString("; nor the step events, which the recording predates")
	}
	if items := ig.Items(); len(items) > 0 {
		b.WriteString("; nor, as --ignore asks, " + strings.Join(items, ", "))
	}
	b.WriteString(")\n")
	return b.String(), false
}

// addedRepairs is the field of tool_call events that says what JSON repair
// changed; recordings made before it existed do not have it.
const addedRepairs = "repairs"

// anyHasField reports whether any event has the top-level field k.
func anyHasField(events [][]byte, k string) bool {
	for _, ev := range events {
		if gjson.GetBytes(ev, k).Exists() {
			return true
		}
	}
	return false
}

// anyRefusedCall reports whether a transcript holds a refused call's
// line: a tool_call marked "validated": false before its observation,
// which recordings made before such calls kept their line do not have.
func anyRefusedCall(events [][]byte) bool {
	for _, ev := range events {
		if isRefusedCall(ev) {
			return true
		}
	}
	return false
}

func isRefusedCall(ev []byte) bool {
	if typ, err := tools.EventType(ev); err != nil || typ != tools.TypeToolCall {
		return false
	}
	e, _ := tools.DecodeCallEvent(ev)
	return e.Refused()
}

// anyOfType reports whether a transcript holds an event of type typ.
func anyOfType(events [][]byte, typ string) bool {
	for _, ev := range events {
		if isType(ev, typ) {
			return true
		}
	}
	return false
}

func isType(ev []byte, typ string) bool {
	t, err := tools.EventType(ev)
	return err == nil && t == typ
}

// without is events less those drop reports, and the index in events of
// each one kept.
func without(events [][]byte, drop func([]byte) bool) (kept [][]byte, index []int) {
	for i, ev := range events {
		if !drop(ev) {
			kept, index = append(kept, ev), append(index, i)
		}
	}
	return kept, index
}

func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// diffItem is one difference: an event of want, of got, or of both (a
// change); -1 where there is none.
type diffItem struct{ want, got int }

// canonicalEvents returns each event in a form where equal means the same
// event: keys sorted at every level, strings re-encoded one way, what cmp
// ignores left out. A line that is not JSON stays as it is.
func canonicalEvents(events [][]byte, cmp *comparison) []string {
	out := make([]string, len(events))
	for i, ev := range events {
		if !gjson.ValidBytes(ev) {
			out[i] = "\x00" + string(ev)
			continue
		}
		e := gjson.ParseBytes(ev)
		out[i] = string(appendCanonical(nil, e, cmp.omit(e)))
	}
	return out
}

// appendCanonical appends v canonical, leaving out what omit names.
func appendCanonical(dst []byte, v gjson.Result, omit omitTree) []byte {
	switch {
	case v.IsObject():
		type kv struct {
			k string
			v gjson.Result
		}
		var kvs []kv
		v.ForEach(func(k, val gjson.Result) bool {
			if !omit.drops(k.Str) {
				kvs = append(kvs, kv{k.Str, val})
			}
			return true
		})
		// The last of duplicate keys wins, as in most JSON readers.
		slices.SortStableFunc(kvs, func(a, b kv) int { return strings.Compare(a.k, b.k) })
		dst = append(dst, '{')
		first := true
		for i, e := range kvs {
			if i+1 < len(kvs) && kvs[i+1].k == e.k {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = jsonw.AppendString(dst, e.k)
			dst = append(dst, ':')
			dst = appendCanonical(dst, e.v, omit[e.k])
		}
		return append(dst, '}')
	case v.IsArray():
		dst = append(dst, '[')
		first := true
		i := 0
		v.ForEach(func(_, val gjson.Result) bool {
			k := strconv.Itoa(i)
			i++
			if omit.drops(k) {
				return true
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = appendCanonical(dst, val, omit[k])
			return true
		})
		return append(dst, ']')
	case v.Type == gjson.String && len(omit) > 0 && gjson.Valid(v.Str):
		// JSON text, such as a tool's printed result, with a part of it
		// left out: the rest compared canonical, still as a string.
		if inner := gjson.Parse(v.Str); inner.IsObject() || inner.IsArray() {
			return jsonw.AppendString(dst, string(appendCanonical(nil, inner, omit)))
		}
		return jsonw.AppendString(dst, v.Str)
	case v.Type == gjson.String:
		return jsonw.AppendString(dst, v.Str)
	default:
		return append(dst, v.Raw...)
	}
}

// alignEvents lists the differences between two canonical transcripts,
// in transcript order.
func alignEvents(want, got []string) []diffItem {
	// The common beginning and end need no table.
	lo := 0
	for lo < len(want) && lo < len(got) && want[lo] == got[lo] {
		lo++
	}
	hw, hg := len(want), len(got)
	for hw > lo && hg > lo && want[hw-1] == got[hg-1] {
		hw--
		hg--
	}
	w, g := want[lo:hw], got[lo:hg]
	if len(w) == 0 && len(g) == 0 {
		return nil
	}

	var items []diffItem
	var dels, ins []int
	flush := func() {
		items = append(items, pairHunk(want, got, dels, ins)...)
		dels, ins = dels[:0], ins[:0]
	}
	if len(w)*len(g) > checkAlignMax {
		for i := 0; i < max(len(w), len(g)); i++ {
			if i < len(w) {
				dels = append(dels, lo+i)
			}
			if i < len(g) {
				ins = append(ins, lo+i)
			}
		}
		flush()
		return items
	}

	// lcs[i][j] is the length of the longest common subsequence of w[i:]
	// and g[j:].
	cols := len(g) + 1
	lcs := make([]int32, (len(w)+1)*cols)
	for i := len(w) - 1; i >= 0; i-- {
		for j := len(g) - 1; j >= 0; j-- {
			if w[i] == g[j] {
				lcs[i*cols+j] = lcs[(i+1)*cols+j+1] + 1
			} else {
				lcs[i*cols+j] = max(lcs[(i+1)*cols+j], lcs[i*cols+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(w) || j < len(g) {
		switch {
		case i < len(w) && j < len(g) && w[i] == g[j]:
			flush()
			i++
			j++
		case j == len(g) || (i < len(w) && lcs[(i+1)*cols+j] >= lcs[i*cols+j+1]):
			dels = append(dels, lo+i)
			i++
		default:
			ins = append(ins, lo+j)
			j++
		}
	}
	flush()
	return items
}

// pairHunk turns one run of missing and extra events into differences,
// pairing a missing event with the next extra one of the same type as a
// change, keeping both orders.
func pairHunk(want, got []string, dels, ins []int) []diffItem {
	var items []diffItem
	next := 0 // first extra event not yet shown
	for _, d := range dels {
		typ := canonicalType(want[d])
		match := -1
		for k := next; k < len(ins); k++ {
			if canonicalType(got[ins[k]]) == typ {
				match = k
				break
			}
		}
		if match < 0 {
			items = append(items, diffItem{want: d, got: -1})
			continue
		}
		for ; next < match; next++ {
			items = append(items, diffItem{want: -1, got: ins[next]})
		}
		items = append(items, diffItem{want: d, got: ins[match]})
		next = match + 1
	}
	for ; next < len(ins); next++ {
		items = append(items, diffItem{want: -1, got: ins[next]})
	}
	return items
}

func canonicalType(c string) string {
	if strings.HasPrefix(c, "\x00") {
		return "\x00"
	}
	return gjson.Get(c, "type").Str
}

// eventLabel names an event for a reader: its type, and the id and tool
// name of a call or an observation.
func eventLabel(ev []byte) string {
	typ, err := tools.EventType(ev)
	switch {
	case err != nil && !gjson.ValidBytes(ev):
		return "a line that is not JSON"
	case err != nil || typ == "":
		return "event without a type"
	}
	switch typ {
	case tools.TypeToolCall:
		c, hasName := tools.DecodeCallEvent(ev)
		typ += idName(c.ID, c.Name, hasName)
	case tools.TypeToolObservation:
		o := tools.DecodeObservation(ev)
		typ += idName(o.ID, o.Name, true)
	}
	return typ
}

// idName is " ID (NAME)" for a label, each part only when there is one.
func idName(id, name string, hasName bool) string {
	var s string
	if id != "" {
		s = " " + id
	}
	if hasName {
		s += " (" + name + ")"
	}
	return s
}

// fieldDiff writes the top-level fields that differ between two events,
// in want's key order, then got's new keys, leaving out what cmp ignores.
func fieldDiff(b *strings.Builder, want, got []byte, cmp *comparison) {
	if !gjson.ValidBytes(want) || !gjson.ValidBytes(got) {
		fmt.Fprintf(b, "    want: %s\n    got:  %s\n", clip.Head(string(want), 2*checkValueMax), clip.Head(string(got), 2*checkValueMax))
		return
	}
	w, g := gjson.ParseBytes(want), gjson.ParseBytes(got)
	omit := cmp.omit(w)
	var keys []string
	seen := map[string]bool{}
	for _, e := range []gjson.Result{w, g} {
		e.ForEach(func(k, _ gjson.Result) bool {
			if !seen[k.Str] && !omit.drops(k.Str) {
				seen[k.Str] = true
				keys = append(keys, k.Str)
			}
			return true
		})
	}
	for _, k := range keys {
		path := gjsonKey(k)
		wv, gv := w.Get(path), g.Get(path)
		ws, gs := displayValue(wv, omit[k]), displayValue(gv, omit[k])
		if ws == gs {
			continue
		}
		ws, gs = clipPair(ws, gs, checkValueMax)
		fmt.Fprintf(b, "  %s\n    want: %s\n    got:  %s\n", k, ws, gs)
	}
}

// gjsonKey escapes a key for use as a gjson path.
func gjsonKey(k string) string {
	var b strings.Builder
	for _, r := range k {
		if strings.ContainsRune(`.*?|#@\!=<>%`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func displayValue(v gjson.Result, omit omitTree) string {
	if !v.Exists() {
		return "(absent)"
	}
	return string(appendCanonical(nil, v, omit))
}

// clipPair shortens two differing values to about n bytes each, around
// the first place they differ, so a long observation shows where it
// changed rather than its unchanged beginning.
func clipPair(a, b string, n int) (string, string) {
	if len(a) <= n && len(b) <= n {
		return a, b
	}
	d := 0
	for d < len(a) && d < len(b) && a[d] == b[d] {
		d++
	}
	start := max(0, d-n/3)
	clip := func(s string) string {
		if len(s) <= n {
			return s
		}
		st := clip.Boundary(s, start)
		end := st + clip.Boundary(s[st:], n)
		out := s[st:end]
		if st > 0 {
			out = clip.Ellipsis + out
		}
		if end < len(s) {
			out += clip.Ellipsis
		}
		return fmt.Sprintf("%s (%d bytes)", out, len(s))
	}
	return clip(a), clip(b)
}
