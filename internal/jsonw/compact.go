package jsonw

// AppendCompact appends the valid JSON value raw without the white space
// between its tokens, so that a pretty-printed schema fits on one JSONL
// line. Everything else (key order, numbers, escapes) is kept byte for
// byte.
func AppendCompact[T string | []byte](dst []byte, raw T) []byte {
	start := 0
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case ' ', '\t', '\n', '\r':
			dst = append(dst, raw[start:i]...)
			start = i + 1
		}
	}
	return append(dst, raw[start:]...)
}
