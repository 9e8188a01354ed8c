package tools

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/toolcall/toolcall/internal/clip"
	"github.com/toolcall/toolcall/internal/termsafe"
)

// What ConfirmText shows of one value and one key before it cuts them in
// the middle: enough to read a path or a command whole, and its end is
// kept because that is where "/../../etc/passwd" or "; rm -rf ~" hides.
const (
	confirmValue = 200
	confirmKey   = 80
	confirmDepth = 16 // nested objects shown key by key; deeper ones as values
)

// ConfirmText shows a call's arguments to the person asked to approve it
// (exec --confirm): one line per argument, "  key: value", every key of
// every nested object shown, never one left out, whatever comes before
// it; a long value or key is cut in the middle with the number of bytes
// cut said, and everything is escaped for the terminal (the arguments are
// the model's, see termsafe). ConfirmWhole shows what it cut.
func ConfirmText(args []byte) string { return confirmText(args, true) }

// ConfirmWhole is ConfirmText with nothing cut: every value and key whole,
// for the person who asks to see the middle of a long one before
// answering (the prompt's "v").
func ConfirmWhole(args []byte) string { return confirmText(args, false) }

func confirmText(args []byte, cut bool) string {
	v := gjson.ParseBytes(args)
	var b strings.Builder
	if !v.IsObject() {
		b.WriteString("  " + confirmCut(strings.TrimSpace(string(args)), confirmLimit(cut, confirmValue)) + "\n")
		return b.String()
	}
	if n := confirmObject(&b, v, "", 0, cut); n == 0 {
		b.WriteString("  (no arguments)\n")
	}
	return b.String()
}

// confirmLimit is the limit confirmCut is given: none when nothing is cut.
func confirmLimit(cut bool, limit int) int {
	if !cut {
		return -1
	}
	return limit
}

// confirmObject writes obj's members under the name prefix and returns
// how many it wrote. The layout is the same cut or not, so that the whole
// view reads as the prompt did.
func confirmObject(b *strings.Builder, obj gjson.Result, prefix string, depth int, cut bool) int {
	n := 0
	obj.ForEach(func(k, val gjson.Result) bool {
		name := prefix + confirmName(k.Str, cut)
		if val.IsObject() && depth < confirmDepth && len(val.Raw) > confirmValue {
			if confirmObject(b, val, name+".", depth+1, cut) > 0 {
				n++
				return true
			}
		}
		fmt.Fprintf(b, "  %s: %s\n", name, confirmCut(val.Raw, confirmLimit(cut, confirmValue)))
		n++
		return true
	})
	return n
}

// confirmName is a key as shown: as it is when it is a plain word, else
// quoted, so that a key holding a dot or a blank cannot pass for two.
func confirmName(k string, cut bool) string {
	plain := k != ""
	for _, c := range k {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			plain = false
			break
		}
	}
	if !plain {
		k = strconv.Quote(k)
	}
	return confirmCut(k, confirmLimit(cut, confirmKey))
}

// confirmCut escapes s for the terminal and, past limit bytes, keeps its
// start and its end, cut at character boundaries, and says how much went;
// a limit below 0 cuts nothing.
func confirmCut(s string, limit int) string {
	if limit >= 0 && len(s) > limit {
		head, tail := clip.Boundary(s, limit/2), len(s)-limit/2
		for tail < len(s) && !utf8Start(s[tail]) {
			tail++
		}
		s = fmt.Sprintf("%s…[%d bytes]…%s", s[:head], tail-head, s[tail:])
	}
	return termsafe.Line(s)
}

func utf8Start(c byte) bool { return c&0xc0 != 0x80 }
