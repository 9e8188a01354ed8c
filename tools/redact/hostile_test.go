package redact

import (
	"encoding/base64"
	"strings"
	"testing"
)

// The attacks of issue 31's "secrets still leaking", each written down.

// A secret of digits alone, given where JSON has a number.
func TestHostileDigitsSecretAsJSONNumber(t *testing.T) {
	r := New([]string{"BANK_PIN_SECRET=73194628"}, nil)
	got := string(r.JSON([]byte(`{"pin":73194628,"neg":-73194628,"list":[1,731946280],"s":"73194628","ok":42}`)))
	if strings.Contains(got, "73194628") {
		t.Errorf("a secret written as a number leaked: %s", got)
	}
	if !strings.Contains(got, `"ok":42`) || !strings.Contains(got, `"pin":"[REDACTED]"`) {
		t.Errorf("numbers without the secret changed, or the marker is missing: %s", got)
	}
}

// A secret of digits alone in every form JSON (or a float printer) may
// write its value: exponent, fraction, capital E, plus sign, trailing
// zeros, negative; in JSON numbers and in text alike (issue 42).
func TestHostileDigitsSecretInExponentForm(t *testing.T) {
	r := New([]string{"BANK_PIN_SECRET=8675309123"}, nil)
	forms := []string{
		"8.675309123e9", "8.675309123E9", "8.675309123e+9", "8.675309123E+09",
		"8675309123.0", "8675309123.000", "8675309123e0", "86753091230e-1",
		"867530912300E-2", "0.8675309123e10", "86753.09123e5", "-8.675309123e9",
		"8.6753091230000e9", "8675309123.5e0",
	}
	for _, f := range forms {
		got := string(r.JSON([]byte(`{"pin":` + f + `,"ok":1.5e3}`)))
		if got != `{"pin":"[REDACTED]","ok":1.5e3}` {
			t.Errorf("JSON number %s: got %s", f, got)
		}
		if got := r.String("the pin is " + f + "."); got != "the pin is [REDACTED]." {
			t.Errorf("text %q: got %q", f, got)
		}
	}
	// Cut in two by the events of a long stretch of text: held, and
	// replaced across the cut.
	if !r.MayContinue("the pin is 8.6753") {
		t.Error("a piece ending in the start of a number is not held back")
	}
	if a, b := r.Across("the pin is 8.6753", "09123e9, keep it"); strings.Contains(a+b, "09123") || a != "the pin is [REDACTED]" || b != ", keep it" {
		t.Errorf("across the cut: %q %q", a, b)
	}
	// Other values keep their digits: a different number, and one huge
	// exponent that must cost nothing.
	for _, keep := range []string{"8.675309124e9", "1.5e3", "3.14", "1e999999999", "8.675309123e8"} {
		if got := r.String(keep); got != keep {
			t.Errorf("%s became %s", keep, got)
		}
	}
}

// A key pasted with a blank around it: the server echoes it trimmed.
func TestHostileSecretGivenWithBlanks(t *testing.T) {
	r := New(nil, nil, "  hunter2-hunter2\n")
	if got := r.String("your key hunter2-hunter2 is invalid"); strings.Contains(got, "hunter2-hunter2") {
		t.Errorf("the trimmed key leaked: %s", got)
	}
}

// A tool puts the secret in an MCP content part's payload: written as it
// is, and base64-encoded inside a file.
func TestHostileSecretInMCPPartPayload(t *testing.T) {
	const key = "zq7Vx2LmN9pQ4rTt8WbY"
	r := New([]string{"SERVICE_TOKEN=" + key}, nil)
	file := base64.StdEncoding.EncodeToString([]byte("config:\n  token: " + key + "\n"))
	parts := `[{"type":"text","text":"ok"},{"type":"image","data":"` + key + `","mimeType":"image/png"},` +
		`{"type":"resource","resource":{"uri":"file:///c","blob":"` + file + `"}}]`
	got := r.Parts([]byte(parts))
	if strings.Contains(string(got), key) {
		t.Errorf("a secret written in a payload leaked: %s", got)
	}
	if strings.Contains(string(got), file) {
		t.Errorf("a secret inside a base64 file leaked: %s", got)
	}
	// A payload without a secret is kept byte for byte, even when it
	// spells a well-known format by chance.
	img := "AKIAABCDEFGHIJ234567" // an AWS key id's shape, and valid base64 of junk
	if r.String(img) == img {
		t.Fatal("the test's payload does not look like a key")
	}
	clean := `[{"type":"image","data":"` + img + `"}]`
	if got := r.Parts([]byte(clean)); string(got) != clean {
		t.Errorf("a clean payload changed:\n%s\n%s", clean, got)
	}
}

// The last 4 KiB of stderr start inside a secret: its end must not show.
func TestHostileStderrWindowStartsInsideASecret(t *testing.T) {
	const secret = "Xk29fPq7Lm3Zr8Vn5Tb1W" // 21 characters
	r := New([]string{"DEPLOY_PASSWORD=" + secret}, nil)
	// The window of the last 4096 bytes starts 5 characters into it.
	s := strings.Repeat("noise\n", 100) + secret + strings.Repeat("x", 4096-(len(secret)-5))
	got := r.Tail(s, 4096)
	if strings.Contains(got, secret[5:]) || strings.Contains(got, secret[10:]) {
		t.Errorf("the window shows the end of the secret: %.60q", got)
	}
	if len(got) > 4096+len(Marker) || !strings.HasSuffix(got, "xxxx") {
		t.Errorf("Tail kept %d bytes", len(got))
	}
}

// The start of a secret at the end of a piece is found in time linear in
// the secret, and only a start of at least minSplitPrefix bytes counts.
func TestMayContinueAndAcross(t *testing.T) {
	const key = "abcabd-secret-xyz"
	r := New(nil, nil, key)
	for s, want := range map[string]bool{
		"text abcab":      true,
		"text abcabcab":   true, // the longest start after a false one
		"text ab":         false,
		"text " + key:     false, // whole: redacted as usual
		"text abcabd-sec": true,
		"":                false,
	} {
		if got := r.MayContinue(s); got != want {
			t.Errorf("MayContinue(%q) = %v, want %v", s, got, want)
		}
	}
	a, b := r.Across("one abcabd-se", "cret-xyz two")
	if a != "one "+Marker || b != " two" {
		t.Errorf("Across = %q, %q", a, b)
	}
	if a, b := r.Across("one abc", "def"); a != "one abc" || b != "def" {
		t.Errorf("Across with no secret = %q, %q", a, b)
	}
}
