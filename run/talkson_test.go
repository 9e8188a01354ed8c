package run

import "testing"

// What follows a call: closing tokens and space let the turn go on (another
// call may come); prose after them is the model inventing the result.
func TestTalksOn(t *testing.T) {
	for _, c := range []struct {
		tail string
		want bool
	}{
		{"", false},
		{" \n", false},
		{"\n</tool_call>\n", false},
		{"</tool_call><|im_end|>", false},
		{"</tool_c", false}, // a closing tag, maybe: wait for the rest
		{"```\n<tool_call>", false},
		{"\n{\"type\":", false},
		{"</tool_call>\nThe result is 42.", true},
		{"The file has 3 lines.", true},
	} {
		if got := talksOn([]byte(c.tail)); got != c.want {
			t.Errorf("talksOn(%q) = %v, want %v", c.tail, got, c.want)
		}
	}
}
