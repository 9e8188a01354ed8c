package chattemplate

import (
	"fmt"
	"iter"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// Two gaps of gonja v2.9.1 are bridged by rewriting a template's tags
// before they are parsed:
//
// gonja reads a conditional expression (A if C else B) only at the top of
// {{ … }} or {% set … %}; inside parentheses, brackets or call arguments
// it does not parse, and many templates write ("\n" if x else ""). A
// template that does not parse is read again with each such expression
// rewritten as a call, toolcall_if(C, A, B). Both branches are then
// evaluated, which is harmless for the expressions templates write.

// And x[-1] is None when x has exactly one item (an off-by-one in its
// negative indexing), where templates ask for messages[-1]; it is
// rewritten as (x|last).

//
// And a macro that calls itself without end would overflow the stack,
// which kills the process: each macro body counts its depth, and past
// maxMacroDepth the render fails instead.

const (
	ternaryFunc = "toolcall_if"
	enterFunc   = "toolcall_enter"
	leaveFunc   = "toolcall_leave"
	// maxMacroDepth is far deeper than any schema a template walks.
	maxMacroDepth = 200
)

// macroDepth counts the macro calls under way in one render.
type macroDepth struct{ n int }

func (d *macroDepth) enter() (string, error) {
	d.n++
	if d.n > maxMacroDepth {
		return "", fmt.Errorf("macros call each other more than %d deep: the template recurses without end", maxMacroDepth)
	}
	return "", nil
}

func (d *macroDepth) leave() (string, error) {
	d.n--
	return "", nil
}

func ternary(c, a, b *exec.Value) *exec.Value {
	if c.IsTrue() {
		return a
	}
	return b
}

// rewriteConditionals rewrites the nested conditionals in every tag of a
// template; text outside tags, comments and raw blocks stay as they are.
func rewriteConditionals(src string) string { return rewriteTags(src, true) }

// rewriteAlways makes the rewrites every template gets: x[-1] and the
// macro depth count.
func rewriteAlways(src string) string { return rewriteTags(src, false) }

func rewriteTags(src string, conditionals bool) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(src, '{')
		if i < 0 || i+1 >= len(src) {
			b.WriteString(src)
			return b.String()
		}
		var closer string
		switch src[i+1] {
		case '{':
			closer = "}}"
		case '%':
			closer = "%}"
		case '#':
			closer = "#}"
		default:
			b.WriteString(src[:i+1])
			src = src[i+1:]
			continue
		}
		end := tagEnd(src, i+2, closer)
		if end < 0 {
			b.WriteString(src)
			return b.String()
		}
		body := src[i+2 : end]
		word := ""
		if closer == "%}" {
			if f := strings.Fields(strings.Trim(body, "-+ \t\n")); len(f) > 0 {
				word = f[0]
			}
		}
		b.WriteString(src[:i])
		if word == "endmacro" {
			// Leave the macro's depth count before its end (see
			// macroDepth), trimming as the end tag does.
			if strings.HasPrefix(body, "-") {
				b.WriteString("{%- do " + leaveFunc + "() %}")
			} else {
				b.WriteString("{% do " + leaveFunc + "() %}")
			}
		}
		b.WriteString(src[i : i+2])
		if closer != "#}" {
			if strings.TrimSpace(strings.Trim(body, "-+ ")) == "raw" {
				// Up to {% endraw %} untouched.
				k := strings.Index(src[end:], "endraw")
				if k < 0 {
					b.WriteString(src[i+2:])
					return b.String()
				}
				b.WriteString(src[i+2 : end+k])
				src = src[end+k:]
				continue
			}
			body = lastIndex(body)
			if conditionals {
				body = rewriteExpr(body)
			}
			body = guardBody(body, closer == "%}")
		}
		b.WriteString(body)
		// A macro body counts its depth (see macroDepth), and each loop
		// iteration ticks the render's guard (see guard.go): a call
		// right after the opening tag, trimming after it as that tag did.
		if fn := map[string]string{"macro": enterFunc, "for": tickFunc}[word]; fn != "" {
			b.WriteString(closer)
			if strings.HasSuffix(body, "-") {
				b.WriteString("{% do " + fn + "() -%}")
			} else {
				b.WriteString("{% do " + fn + "() %}")
			}
			src = src[end+len(closer):]
			continue
		}
		src = src[end:]
	}
}

// tagEnd finds closer after from, skipping string literals.
func tagEnd(s string, from int, closer string) int {
	for k := from; k < len(s); k++ {
		switch c := s[k]; {
		case (c == '"' || c == '\'') && closer != "#}":
			k = stringEnd(s, k)
			if k < 0 {
				return -1
			}
		case strings.HasPrefix(s[k:], closer):
			return k
		}
	}
	return -1
}

// stringEnd returns the index of the quote closing the literal at s[i].
func stringEnd(s string, i int) int {
	q := s[i]
	for k := i + 1; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case q:
			return k
		}
	}
	return -1
}

// rewriteExpr rewrites the conditionals inside the bracket groups of e.
func rewriteExpr(e string) string {
	var b strings.Builder
	for k := 0; k < len(e); k++ {
		c := e[k]
		switch c {
		case '"', '\'':
			j := stringEnd(e, k)
			if j < 0 {
				b.WriteString(e[k:])
				return b.String()
			}
			b.WriteString(e[k : j+1])
			k = j
		case '(', '[':
			j := groupEnd(e, k)
			if j < 0 {
				b.WriteString(e[k:])
				return b.String()
			}
			b.WriteByte(c)
			inner := rewriteExpr(e[k+1 : j])
			parts := splitTop(inner, ',')
			for n, p := range parts {
				if n > 0 {
					b.WriteByte(',')
				}
				b.WriteString(conditional(p))
			}
			b.WriteByte(e[j])
			k = j
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// groupEnd returns the index of the bracket closing the one at e[i].
func groupEnd(e string, i int) int {
	depth := 0
	for k := i; k < len(e); k++ {
		switch e[k] {
		case '"', '\'':
			k = stringEnd(e, k)
			if k < 0 {
				return -1
			}
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// topLevel yields the positions of s, from from, that are outside string
// literals and brackets (the brackets themselves excluded).
func topLevel(s string, from int) iter.Seq[int] {
	return func(yield func(int) bool) {
		depth := 0
		for k := from; k < len(s); k++ {
			switch s[k] {
			case '"', '\'':
				if j := stringEnd(s, k); j >= 0 {
					k = j
				}
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			default:
				if depth == 0 && !yield(k) {
					return
				}
			}
		}
	}
}

// splitTop splits s at sep outside strings and brackets.
func splitTop(s string, sep byte) []string {
	var parts []string
	start := 0
	for k := range topLevel(s, 0) {
		if s[k] == sep {
			parts = append(parts, s[start:k])
			start = k + 1
		}
	}
	return append(parts, s[start:])
}

// keywordAt finds the word kw outside strings and brackets in s, from from.
func keywordAt(s, kw string, from int) int {
	for k := range topLevel(s, from) {
		if strings.HasPrefix(s[k:], kw) && (k == 0 || !isWordByte(s[k-1])) && (k+len(kw) == len(s) || !isWordByte(s[k+len(kw)])) {
			return k
		}
	}
	return -1
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// conditional rewrites "A if C else B" (B may chain) as a call; anything
// else, a comprehension included, comes back as it is.
func conditional(p string) string {
	if keywordAt(p, "for", 0) >= 0 {
		return p
	}
	i := keywordAt(p, "if", 0)
	if i < 0 {
		return p
	}
	e := keywordAt(p, "else", i+2)
	if e < 0 {
		return p
	}
	a, c, rest := p[:i], p[i+2:e], p[e+4:]
	if strings.TrimSpace(a) == "" || strings.TrimSpace(c) == "" || strings.TrimSpace(rest) == "" {
		return p
	}
	return " " + ternaryFunc + "((" + strings.TrimSpace(c) + "), (" + strings.TrimSpace(a) + "), (" + strings.TrimSpace(conditional(rest)) + ")) "
}

// lastIndex rewrites CHAIN[-1] as (CHAIN|last) outside string literals,
// or as CHAIN[(CHAIN|length) - 1] where a method or attribute follows.
func lastIndex(e string) string {
	const neg = "[-1]"
	var b strings.Builder
	start := 0 // e[start:] is not yet written
	for k := 0; k < len(e); k++ {
		switch e[k] {
		case '"', '\'':
			if j := stringEnd(e, k); j >= 0 {
				k = j
			}
		case '[':
			if !strings.HasPrefix(e[k:], neg) {
				continue
			}
			c := chainStart(e, k, start)
			if c == k || e[c] == '.' || c == start && start > 0 && chainByte(e[start-1]) {
				// No chain, or one that runs into an earlier rewrite
				// (x[-1].y[-1]): left as it is.
				continue
			}
			b.WriteString(e[start:c])
			if strings.HasPrefix(e[k+len(neg):], ".") {
				// gonja calls no method on a parenthesised value
				// ((x|last).lstrip()): index from the length instead.
				b.WriteString(e[c:k] + "[(" + e[c:k] + "|length) - 1]")
			} else {
				b.WriteString("(" + e[c:k] + "|last)")
			}
			k += len(neg) - 1
			start = k + 1
		}
	}
	b.WriteString(e[start:])
	return b.String()
}

// chainStart walks back from e[k] over a postfix chain (names, dots,
// calls, subscripts, a string literal) and returns where it starts, not
// before floor.
func chainStart(e string, k, floor int) int {
	j := k - 1
	for j >= floor {
		c := e[j]
		switch {
		case c == ')' || c == ']':
			open := byte('(')
			if c == ']' {
				open = '['
			}
			depth := 0
			for ; j >= floor; j-- {
				if e[j] == c {
					depth++
				} else if e[j] == open {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			if j < floor {
				return k
			}
			j--
		case c == '"' || c == '\'':
			i := strings.LastIndexByte(e[floor:j], c)
			if i < 0 {
				return k
			}
			j = floor + i - 1
		case c == '.' || isWordByte(c):
			j--
		default:
			return j + 1
		}
	}
	return j + 1
}

// chainByte reports whether c can end a postfix chain.
func chainByte(c byte) bool { return c == ']' || c == ')' || c == '.' || isWordByte(c) }
