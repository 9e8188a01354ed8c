package jsonw

import "testing"

func TestAppendCompact(t *testing.T) {
	for in, want := range map[string]string{
		`{ "a" : [1, 2 ,3] }`:                          `{"a":[1,2,3]}`,
		"{\n\t\"s\": \"keep  these \\\" spaces\"\r\n}": `{"s":"keep  these \" spaces"}`,
		`{"k\\": " x "}`:                               `{"k\\":" x "}`,
		`"already"`:                                    `"already"`,
	} {
		if got := string(AppendCompact(nil, []byte(in))); got != want {
			t.Errorf("AppendCompact(%q) = %q, want %q", in, got, want)
		}
	}
}
