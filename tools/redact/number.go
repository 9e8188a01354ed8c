package redact

import (
	"strings"

	"github.com/toolcall/toolcall/internal/unsafestr"
)

// A secret of digits alone (a PIN, a numeric key) can be written as a
// number, and JSON (and any program printing a float) writes a number in
// many forms: 8675309123, 8675309123.0, 8.675309123e9, 86753.09123E+5,
// 0.8675309123e10. The plain form holds the digits, and valueSpans finds
// it; numberSpans finds the others by the value they write.

// digitSecrets lists the secret values of r made of ASCII digits alone.
func digitSecrets(values []secretValue) []string {
	var out []string
	for _, v := range values {
		if strings.Trim(v.raw, "0123456789") == "" {
			out = append(out, v.raw)
		}
	}
	return out
}

// numberSpans appends the spans of s that write, as a number with a
// fraction or an exponent, a value whose plain decimal form holds one of
// the digit secrets: the whole number, its sign included, is the span.
func (r *Redactor) numberSpans(s string, sp []span) []span {
	if len(r.digits) == 0 {
		return sp
	}
	shortest, longest := len(r.digits[0]), 0
	for _, d := range r.digits {
		shortest, longest = min(shortest, len(d)), max(longest, len(d))
	}
	var plain []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' || i > 0 && (isDigit(s[i-1]) || s[i-1] == '.') {
			continue
		}
		end, whole, frac, exp, ok := readNumber(s, i)
		// Too few digits, and zeros, to hold the shortest secret: most
		// numbers of a text (a time, a version, a size).
		if !ok || len(whole)+len(frac)+min(abs(exp), longest) < shortest {
			i = end - 1
			continue
		}
		n := number{digits: whole + frac, exp: exp - len(frac)}
		plain = n.appendPlain(plain[:0], longest)
		for _, d := range r.digits {
			if strings.Contains(unsafestr.String(plain), d) {
				start := i
				if start > 0 && s[start-1] == '-' {
					start--
				}
				sp = append(sp, span{start, end})
				break
			}
		}
		i = end - 1
	}
	return sp
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number is a decimal number as written: its digits (integer part, then
// fraction) and the power of ten of the last of them.
type number struct {
	digits string
	exp    int // the value is digits × 10^exp
}

// readNumber reads the number that starts at s[i] (a digit): digits (its
// whole part), then a fraction, then an exponent, each optional but the
// first. ok is false for a number of digits alone, which the plain search
// finds already; end is past what was read either way.
func readNumber(s string, i int) (end int, whole, frac string, exp int, ok bool) {
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	whole = s[i:j]
	if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
		k := j + 1
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		frac, j = s[j+1:k], k
	}
	hasExp := false
	if j+1 < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k, neg := j+1, false
		if s[k] == '+' || s[k] == '-' {
			neg = s[k] == '-'
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for ; k < len(s) && isDigit(s[k]); k++ {
				if exp < 1<<30 { // past this, only zeros are added: see appendPlain
					exp = exp*10 + int(s[k]-'0')
				}
			}
			if neg {
				exp = -exp
			}
			j, hasExp = k, true
		}
	}
	return j, whole, frac, exp, frac != "" || hasExp
}

// appendPlain appends n in plain decimal, without sign, leading zeros of
// the integer part or trailing zeros of the fraction: "8675309123" for
// 8.675309123e9. A run of zeros the exponent adds is cut to pad bytes, as
// a secret of at most pad bytes cannot hold more of it: a number such as
// 1e999999999 costs no more than 1e9.
func (n number) appendPlain(dst []byte, pad int) []byte {
	d := strings.TrimLeft(n.digits, "0")
	exp := n.exp
	for len(d) > 0 && d[len(d)-1] == '0' && exp < 0 {
		d, exp = d[:len(d)-1], exp+1
	}
	if d == "" {
		return append(dst, '0')
	}
	zeros := func(k int) {
		for range min(k, pad) {
			dst = append(dst, '0')
		}
	}
	switch point := len(d) + exp; {
	case exp >= 0:
		dst = append(dst, d...)
		zeros(exp)
	case point > 0:
		dst = append(dst, d[:point]...)
		dst = append(dst, '.')
		dst = append(dst, d[point:]...)
	default:
		dst = append(dst, "0."...)
		zeros(-point)
		dst = append(dst, d...)
	}
	return dst
}

// numberAtEnd reports whether s ends with what may be the start of a
// number writing a digit secret in another form (8.6753 of
// 8.675309123e9), which the text after s could complete: MayContinue
// holds such a piece back too.
func (r *Redactor) numberAtEnd(s string) bool {
	if len(r.digits) == 0 {
		return false
	}
	i := len(s)
	for i > 0 && strings.IndexByte("0123456789.eE+-", s[i-1]) >= 0 {
		i--
	}
	tail := s[i:]
	return len(tail) >= minSplitPrefix && strings.ContainsAny(tail, "0123456789")
}
