package tools

import (
	"strings"
	"testing"
)

// The attack: one large saved output named many times from a call of a
// few bytes. Without a bound on the total, validate held every copy (a
// 33 MB output named 60 times from a 1.6 KB call took about 7 GB). The
// refs of one call stand for at most --max-ref-bytes together.
func TestHostileRefAmplification(t *testing.T) {
	dir := t.TempDir()
	ref := saveOutput(t, dir, "call_1", strings.Repeat("0123456789abcdef", 64<<10), nil) // 1 MiB
	uses := func(n int) []byte {
		var b strings.Builder
		b.WriteString(`{"a":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + ref + `"`)
		}
		b.WriteString(`]}`)
		return []byte(b.String())
	}
	args := uses(60)
	if _, _, err := resolveRefs(args, dir, 8<<20); err == nil || !strings.Contains(err.Error(), "--max-ref-bytes") {
		t.Fatalf("60 uses of a 1 MiB output under an 8 MiB budget: err = %v", err)
	}
	out, refs, err := resolveRefs(uses(7), dir, 8<<20)
	if err != nil || len(refs) != 7 || len(out) < 7<<20 {
		t.Fatalf("7 uses: %d refs, %d bytes, err %v", len(refs), len(out), err)
	}
}
