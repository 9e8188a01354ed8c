package parse

import "testing"

func TestOutOfRange(t *testing.T) {
	long := make([]byte, 0, 400)
	for range 320 {
		long = append(long, '9')
	}
	for _, tt := range []struct{ in, want string }{
		{`{"x":1e999}`, "1e999"},
		{`{"x":-1E400,"y":2}`, "-1E400"},
		{`{"x":1e308,"y":1e-999}`, ""},
		{`{"s":"1e999","t":"a\"1e999"}`, ""},
		{`{"big":123456789012345678901234567890}`, ""},
		{`{"x":` + string(long) + `}`, ""}, // no exponent: keeps its digits
		{`{"x":[1,2.5e3,{"y":3e400}]}`, "3e400"},
		{`{"city":"Paris","unit":"celsius"}`, ""},
	} {
		if got := string(outOfRange([]byte(tt.in))); got != tt.want {
			t.Errorf("outOfRange(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
