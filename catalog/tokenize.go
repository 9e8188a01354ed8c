package catalog

// Words for ranking: requests and tool documents split the same way, then
// stemmed.

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// tokenizer splits text into words. It reuses its buffer, so a word is
// only valid during the callback.
type tokenizer struct {
	buf []byte // the current word, lower case
}

// Kinds of character, for splitting words.
const (
	kindOther = iota
	kindLower
	kindUpper
	kindDigit
)

var asciiKind = func() (k [utf8.RuneSelf]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		k[c] = kindLower
		k[c-'a'+'A'] = kindUpper
	}
	for c := '0'; c <= '9'; c++ {
		k[c] = kindDigit
	}
	return k
}()

// each calls fn with every word of s, in lower case.
//
// Words are runs of letters or of digits; a word also ends where a lower
// case letter is followed by an upper case one ("getWeather") and before
// the last of several capitals followed by a lower case letter
// ("HTTPServer" -> http, server). Single letters are dropped.
func (z *tokenizer) each(s string, fn func(word []byte)) {
	prev := uint8(kindOther)
	z.buf = z.buf[:0]
	for i := 0; i < len(s); {
		c := s[i]
		var r rune
		size := 1
		var kind uint8
		if c < utf8.RuneSelf {
			kind = asciiKind[c]
			if kind == kindUpper {
				c += 'a' - 'A'
			}
			r = rune(c)
		} else {
			r, size = utf8.DecodeRuneInString(s[i:])
			switch {
			case unicode.IsUpper(r):
				kind = kindUpper
				r = unicode.ToLower(r)
			case unicode.IsLetter(r) || unicode.Is(unicode.Mn, r):
				kind = kindLower
			case unicode.IsDigit(r):
				kind = kindDigit
			}
		}
		if kind != prev || kind == kindOther {
			if kind == kindOther || prev == kindOther || kind == kindDigit || prev == kindDigit ||
				prev == kindLower && kind == kindUpper {
				z.flush(fn)
			}
		} else if kind == kindUpper && nextIsLower(s, i+size) {
			// "HTTPServer": split before the S, the start of "Server".
			z.flush(fn)
		}
		prev = kind
		switch {
		case kind == kindOther:
			i += size
		case r >= utf8.RuneSelf:
			z.buf = utf8.AppendRune(z.buf, r)
			i += size
		default:
			z.buf = append(z.buf, byte(r))
			i++
			// The rest of a run of ASCII lower case letters or digits
			// cannot split: copy it whole.
			if kind != kindUpper {
				j := i
				for j < len(s) && s[j] < utf8.RuneSelf && asciiKind[s[j]] == kind {
					j++
				}
				z.buf = append(z.buf, s[i:j]...)
				i = j
			}
		}
	}
	z.flush(fn)
}

// nextIsLower reports whether a lower case letter starts s[i:].
func nextIsLower(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	if c := s[i]; c < utf8.RuneSelf {
		return asciiKind[c] == kindLower
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLower(r)
}

func (z *tokenizer) flush(fn func(word []byte)) {
	w := z.buf
	z.buf = z.buf[:0]
	if len(w) == 0 || len(w) == 1 && asciiKind[w[0]] != kindDigit || len(w) <= utf8.UTFMax && w[0] >= utf8.RuneSelf && utf8.RuneCount(w) == 1 {
		return // a single letter: "s" of "it's", "à"
	}
	fn(w)
}

const maxStopWord = 6

// stopWords are left out of queries: they match everything and mean
// nothing here. Built on first use, as only a query needs them.
var stopWords = sync.OnceValue(func() map[string]struct{} {
	m := make(map[string]struct{})
	for _, w := range strings.Fields(`a about all also an and any are as at be been but by can could
		did do does for from had has have he her his how i if in into is it its just me my no
		not of on or our please she should so some than that the their them then there these
		they this those to too up us was we were what when where which who why will with would
		you your`) {
		m[w] = struct{}{}
	}
	return m
})

// stemmer reduces words to their stems with the Snowball English
// (Porter2) stemmer, remembering the words it has seen: a catalog says the
// same words again and again. Words with digits, capitals or letters
// outside a-z, and words of fewer than 3 letters, are their own stems.
type stemmer struct{ memo map[string]string }

func (s *stemmer) stem(w []byte) string {
	if st, ok := s.memo[string(w)]; ok {
		return st
	}
	word := string(w)
	st := word
	if len(w) >= 3 && lettersOnly(w) {
		st = english.Stem(word, true)
	}
	if s.memo == nil {
		s.memo = make(map[string]string)
	}
	s.memo[word] = st
	return st
}

func lettersOnly(w []byte) bool {
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
