package chattemplate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// A request's objects keep their key order in Python's Jinja (a dict
// keeps its insertion order), and templates print them: tools | tojson,
// a schema's properties in a loop. A Go map has no order, so values that
// come as JSON are decoded to the engine's ordered dict instead, and a
// message is built in the order a client writes one.

// dict builds an ordered dict of key, value pairs.
func dict(kv ...any) *exec.Dict {
	d := &exec.Dict{Pairs: make([]*exec.Pair, 0, len(kv)/2)}
	for i := 0; i+1 < len(kv); i += 2 {
		d.Pairs = append(d.Pairs, &exec.Pair{Key: exec.AsValue(kv[i]), Value: exec.AsValue(kv[i+1])})
	}
	return d
}

// ordered returns v for the engine: json.RawMessage decoded with its
// objects' keys in order, anything else as it is. JSON that does not
// decode (or nests past maxJSONDepth) is given as its text, which
// templates take for arguments too, rather than fail every later render.
func ordered(v any) any {
	raw, ok := v.(json.RawMessage)
	if !ok {
		return v
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	out, err := decodeOrdered(d, 0)
	if err != nil {
		return string(raw)
	}
	if _, err := d.Token(); err != io.EOF {
		return string(raw) // more than one value
	}
	return out
}

// maxJSONDepth bounds the nesting decodeOrdered follows.
const maxJSONDepth = 200

func decodeOrdered(d *json.Decoder, depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("nested more than %d deep", maxJSONDepth)
	}
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			out := &exec.Dict{}
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeOrdered(d, depth+1)
				if err != nil {
					return nil, err
				}
				out.Pairs = append(out.Pairs, &exec.Pair{Key: exec.AsValue(k), Value: exec.AsValue(v)})
			}
			_, err := d.Token()
			return out, err
		case '[':
			out := []any{}
			for d.More() {
				v, err := decodeOrdered(d, depth+1)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			_, err := d.Token()
			return out, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		if !strings.ContainsAny(t.String(), ".eE") {
			if n, err := t.Int64(); err == nil {
				return int(n), nil
			}
		}
		f, err := t.Float64()
		return f, err
	}
	return tok, nil // string, bool, nil
}
