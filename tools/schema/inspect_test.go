package schema

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckRefs(t *testing.T) {
	for _, tc := range []struct {
		schema string
		bad    []string // pointers of the refs reported
	}{
		{`{"$ref":"#/$defs/a","$defs":{"a":{"type":"string"}}}`, nil},
		{`{"$dynamicRef":"#node"}`, nil},
		{`{"properties":{"$ref":{"type":"string"}}}`, nil},                                  // a property named $ref
		{`{"properties":{"$ref":{"$ref":"a.json"}}}`, []string{"/properties/$ref/$ref"}},    // its schema is still checked
		{`{"default":{"$ref":"http://x"},"enum":[{"$ref":"y"}],"const":{"$ref":"z"}}`, nil}, // data
		{`{"$ref":"http://example.com/s"}`, []string{"/$ref"}},
		{`{"items":[{"$ref":"a.json"},{"$ref":"#"}]}`, []string{"/items/0/$ref"}},
		{`{"x-vendor":{"deep":{"$ref":"file:///etc/passwd"}}}`, []string{"/x-vendor/deep/$ref"}},
		{`{"patternProperties":{"a/b":{"$recursiveRef":"other"}}}`, []string{"/patternProperties/a~1b/$recursiveRef"}},
		{`{"$ref":""}`, nil}, // the schema itself
		// Embedded resources: absolute, relative and urn: "$id"s, refs to
		// them whole, by pointer and by anchor, and relative to them.
		{`{"$defs":{"a":{"$id":"https://example.com/a.json","$defs":{"b":{"$id":"b.json"}}}},"properties":{"x":{"$ref":"https://example.com/a.json"},"y":{"$ref":"https://example.com/b.json#/type"}}}`, nil},
		{`{"$id":"https://example.com/root.json","$defs":{"a":{"$id":"a.json"}},"properties":{"x":{"$ref":"a.json"},"y":{"$ref":"root.json#/$defs/a"},"z":{"$ref":"c.json"}}}`, []string{"/properties/z/$ref"}},
		{`{"$defs":{"a":{"$id":"urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed","type":"string"}},"properties":{"x":{"$ref":"urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed"},"y":{"$ref":"urn:other"}}}`, []string{"/properties/y/$ref"}},
		// The meta-schemas the compiler carries.
		{`{"properties":{"s":{"$ref":"https://json-schema.org/draft/2020-12/schema"},"t":{"$ref":"http://json-schema.org/draft-07/schema#"},"u":{"$ref":"https://json-schema.org/draft/2020-12/meta/validation#/$defs/simpleTypes"}}}`, nil},
		{`{"properties":{"s":{"$ref":"https://json-schema.org/draft/2020-12/schema#/$defs/x"}}}`, []string{"/properties/s/$ref"}},
		// Up to draft-07, an "$id" beside "$ref" changes nothing.
		{`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"$id":"https://example.com/a.json","$ref":"#/definitions/b"}},"properties":{"x":{"$ref":"https://example.com/a.json"}}}`, []string{"/properties/x/$ref"}},
		// An "$id" in an unknown keyword names nothing.
		{`{"x-vendor":{"$id":"https://example.com/v.json"},"properties":{"x":{"$ref":"https://example.com/v.json"}}}`, []string{"/properties/x/$ref"}},
	} {
		err := checkRefs([]byte(tc.schema))
		var got []string
		if err != nil {
			for _, e := range unjoin(err) {
				_, after, _ := strings.Cut(e.Error(), " at ")
				ptr, _, _ := strings.Cut(after, " ")
				got = append(got, ptr)
			}
		}
		if diff := cmp.Diff(tc.bad, got); diff != "" {
			t.Errorf("checkRefs(%s) (-want +got):\n%s", tc.schema, diff)
		}
	}
}

// unjoin splits an errors.Join result into its parts.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
