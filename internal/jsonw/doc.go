// Package jsonw writes JSON the way every toolcall stage writes its
// events: strings escaped only as JSON requires, invalid UTF-8 replaced,
// and raw JSON compacted onto one line, appended to a byte slice without
// allocating. It imports nothing of toolcall's. On amd64 with AVX2, its
// escaping of long strings runs in assembly (escape_amd64.s); the purego
// build tag, or another CPU, leaves it all Go.
package jsonw
