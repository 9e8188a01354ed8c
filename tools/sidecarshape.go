package tools

import (
	"bytes"
	"slices"
	"sync"

	"github.com/tidwall/gjson"
)

// The shape of a sidecar: the keys it may hold, stated once, where each is
// found (at the top, or inside OpenAI's "function" wrapper), and what tells
// a tool definition from some other JSON file.

// sidecar holds the top-level values of a sidecar, as found, before they are
// checked. One pass over the object fills it.
type sidecar struct {
	name, title, description gjson.Result
	schema                   gjson.Result
	schemaKeys               []string // which of input_schema, parameters, inputSchema were given
	outputSchema             gjson.Result
	outputKey                string
	annotations              gjson.Result
	strict                   gjson.Result
	function                 gjson.Result // OpenAI's {"type": "function", "function": {...}}

	safe, timeout, tags, examples     gjson.Result
	retries                           gjson.Result
	allowNoSchema, noSchemaMode       gjson.Result
	requires, platforms, env, command gjson.Result
	aliases, valueAliases, maxCalls   gjson.Result // argument normalisation and the call budget
	mcpFields                         []RawField   // MCP fields passed through
	ours                              bool         // a key only our own dialect has
	schemaType, properties            gjson.Result // a bare JSON Schema given as the sidecar
}

// sidecarKey is one top-level key a sidecar may hold.
type sidecarKey struct {
	key   string
	field sidecarField // where collect puts the value
	// inside says which value counts when the key is both inside
	// OpenAI's "function" and beside it.
	inside   insideFunction
	ours     bool // only our own dialect has the key
	toolOnly bool // only a tool definition has the key (see MeansATool)
	schema   bool // one of the names of the input schema
	output   bool // one of the names of the output schema
}

type insideFunction int

const (
	notInside insideFunction = iota // not looked for inside "function"
	innerWins                       // the definition's own field
	outerWins                       // our keys beside the definition win
)

// sidecarKeys are the keys of a sidecar, stated once: collect fills a
// sidecar by them, the "function" wrapper is unwrapped by them, and
// MeansATool knows a tool definition by them. "name", "title",
// "description", "type", "properties" and "strict" are not toolOnly:
// package.json and bare JSON Schemas have them too. Any other key is
// ignored, but for the MCP fields passed through (mcpPassThrough); one
// that is not some dialect's extras (cache_control, x-* keys, ...) is
// noted as stray (sidecarkeys.go).
var sidecarKeys = []sidecarKey{
	{key: "name", field: fName, inside: innerWins},
	{key: "title", field: fTitle, inside: innerWins},
	{key: "description", field: fDescription, inside: innerWins},
	{key: "input_schema", field: fSchema, inside: innerWins, toolOnly: true, schema: true},
	{key: "parameters", field: fSchema, inside: innerWins, toolOnly: true, schema: true},
	{key: "inputSchema", field: fSchema, inside: innerWins, toolOnly: true, schema: true},
	{key: "function", field: fFunction, toolOnly: true},
	{key: "output_schema", field: fOutputSchema, inside: outerWins, ours: true, toolOnly: true, output: true},
	{key: "outputSchema", field: fOutputSchema, inside: outerWins, toolOnly: true, output: true},
	{key: "annotations", field: fAnnotations, inside: outerWins, toolOnly: true},
	{key: "strict", field: fStrict, inside: innerWins},
	{key: "type", field: fSchemaType},
	{key: "properties", field: fProperties},
	{key: "safe", field: fSafe, inside: outerWins, ours: true, toolOnly: true},
	{key: "timeout", field: fTimeout, inside: outerWins, ours: true, toolOnly: true},
	{key: "retries", field: fRetries, inside: outerWins, ours: true, toolOnly: true},
	{key: "tags", field: fTags, inside: outerWins, ours: true, toolOnly: true},
	{key: "examples", field: fExamples, inside: outerWins, ours: true, toolOnly: true},
	{key: "aliases", field: fAliases, inside: outerWins, ours: true},
	{key: "value_aliases", field: fValueAliases, inside: outerWins, ours: true},
	{key: "max_calls", field: fMaxCalls, inside: outerWins, ours: true, toolOnly: true},
	{key: "allow_no_schema", field: fAllowNoSchema, inside: outerWins, ours: true, toolOnly: true},
	{key: "no_schema_mode", field: fNoSchemaMode, inside: outerWins, ours: true, toolOnly: true},
	{key: "requires", field: fRequires, inside: outerWins, ours: true, toolOnly: true},
	{key: "platforms", field: fPlatforms, inside: outerWins, ours: true, toolOnly: true},
	{key: "env", field: fEnv, inside: outerWins, ours: true, toolOnly: true},
	{key: "command", field: fCommand, inside: outerWins, ours: true, toolOnly: true},
}

// sidecarField names a value of sidecar, for sidecarKeys.
type sidecarField int

const (
	fName sidecarField = iota
	fTitle
	fDescription
	fSchema
	fFunction
	fOutputSchema
	fAnnotations
	fStrict
	fSchemaType
	fProperties
	fSafe
	fTimeout
	fRetries
	fTags
	fExamples
	fAliases
	fValueAliases
	fMaxCalls
	fAllowNoSchema
	fNoSchemaMode
	fRequires
	fPlatforms
	fEnv
	fCommand
)

// field is the value f names. A method, not a func in the table, so that
// a sidecar stays on its caller's stack.
func (s *sidecar) field(f sidecarField) *gjson.Result {
	switch f {
	case fName:
		return &s.name
	case fTitle:
		return &s.title
	case fDescription:
		return &s.description
	case fSchema:
		return &s.schema
	case fFunction:
		return &s.function
	case fOutputSchema:
		return &s.outputSchema
	case fAnnotations:
		return &s.annotations
	case fStrict:
		return &s.strict
	case fSchemaType:
		return &s.schemaType
	case fProperties:
		return &s.properties
	case fSafe:
		return &s.safe
	case fTimeout:
		return &s.timeout
	case fRetries:
		return &s.retries
	case fTags:
		return &s.tags
	case fExamples:
		return &s.examples
	case fAliases:
		return &s.aliases
	case fValueAliases:
		return &s.valueAliases
	case fMaxCalls:
		return &s.maxCalls
	case fAllowNoSchema:
		return &s.allowNoSchema
	case fNoSchemaMode:
		return &s.noSchemaMode
	case fRequires:
		return &s.requires
	case fPlatforms:
		return &s.platforms
	case fEnv:
		return &s.env
	case fCommand:
		return &s.command
	}
	panic("tools: unknown sidecar field")
}

// sidecarKeyIndex finds a key's entry in sidecarKeys.
var sidecarKeyIndex = sync.OnceValue(func() map[string]*sidecarKey {
	m := make(map[string]*sidecarKey, len(sidecarKeys))
	for i := range sidecarKeys {
		m[sidecarKeys[i].key] = &sidecarKeys[i]
	}
	return m
})

func (s *sidecar) collect(obj gjson.Result) {
	keys := sidecarKeyIndex()
	obj.ForEach(func(k, v gjson.Result) bool {
		sk, ok := keys[k.Str]
		if !ok {
			if slices.Contains(mcpPassThrough, k.Str) {
				s.mcpFields = append(s.mcpFields, RawField{Key: k.Str, Value: compact(v.Raw)})
			}
			return true
		}
		*s.field(sk.field) = v
		s.ours = s.ours || sk.ours
		if sk.schema && !slices.Contains(s.schemaKeys, k.Str) {
			s.schemaKeys = append(s.schemaKeys, k.Str)
		}
		if sk.output {
			s.outputKey = k.Str
		}
		return true
	})
}

// unwrap takes in OpenAI's nested shape: the definition is inside
// "function"; our own keys (safe, tags, ...) may sit beside it or inside.
func (s *sidecar) unwrap() {
	var in sidecar
	in.collect(s.function)
	for _, k := range in.schemaKeys {
		if !slices.Contains(s.schemaKeys, k) {
			s.schemaKeys = append(s.schemaKeys, k)
		}
	}
	for _, k := range sidecarKeys {
		out, inner := s.field(k.field), in.field(k.field)
		switch k.inside {
		case innerWins:
			*out = or(*inner, *out)
		case outerWins:
			*out = or(*out, *inner)
		}
	}
}

// toolKeys are the keys that only a tool definition has (toolOnly in
// sidecarKeys), and those of a pasted list ("tools") or JSON-RPC response
// ("jsonrpc"), so that loading one says what to do with it.
var toolKeys = sync.OnceValue(func() []string {
	var keys []string
	for _, k := range sidecarKeys {
		if k.toolOnly {
			keys = append(keys, k.key)
		}
	}
	return append(keys, "tools", "jsonrpc")
})

// MeansATool reports whether data, a .json file found in a tools
// directory, sets out to define a tool: anything but a JSON object, or an
// object with one of the keys only a tool definition has. A file that does
// not (package.json, tsconfig.json) is no sidecar, unless an executable
// beside it says otherwise; the loader decides that. A file that is not
// valid JSON sets out to be a tool when a tool key appears in it quoted.
func MeansATool(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !gjson.ValidBytes(data) {
		for _, k := range toolKeys() {
			if bytes.Contains(data, []byte(`"`+k+`"`)) {
				return true
			}
		}
		return false
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		return true
	}
	found := false
	root.ForEach(func(k, _ gjson.Result) bool {
		found = slices.Contains(toolKeys(), k.Str)
		return !found
	})
	return found
}
