package urlcred

import "testing"

func TestStrip(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8080/v1":                     "http://127.0.0.1:8080/v1",
		"https://user:pa55word@api.example.com/v1":     "https://api.example.com/v1",
		"http://only-user@host/v1?x=1":                 "http://host/v1?x=1",
		"http://user:p%40ss@host:badport/v1":           "http://host:badport/v1", // does not parse
		"http://user:a@b@host/v1":                      "http://host/v1",
		"http://host/v1/path@v2":                       "http://host/v1/path@v2",
		"not a url at all":                             "not a url at all",
		"http://user:pw@[::1]:8080/v1#frag@not-a-user": "http://[::1]:8080/v1#frag@not-a-user",
	} {
		if got := Strip(in); got != want {
			t.Errorf("Strip(%q) = %q, want %q", in, got, want)
		}
	}
}
