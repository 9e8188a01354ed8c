// Package jsonw writes JSON the way every toolcall stage writes its
// events: strings escaped only as JSON requires, invalid UTF-8 replaced,
// and raw JSON compacted onto one line, appended to a byte slice without
// allocating. It imports nothing of toolcall's.
package jsonw
