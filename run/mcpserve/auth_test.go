package mcpserve

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The attack: a token file of mode 0600 that another user owns. They can
// read the token, and change it, whatever its mode is now: refused, for
// the user checked, and accepted for its owner (issue 42).
func TestHostileTokenFileOfAnotherUser(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no user ids in a file's status")
	}
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("their-token-of-some-length\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	me := os.Getuid()
	if tok, err := readToken(file, me); err != nil || tok != "their-token-of-some-length" {
		t.Fatalf("the owner's own file: %q, %v", tok, err)
	}
	_, err := readToken(file, me+1)
	if err == nil || !strings.Contains(err.Error(), "owned by another user") || !strings.Contains(err.Error(), file) {
		t.Errorf("a file of another user: %v", err)
	}
	if me != 0 {
		return
	}
	// As root the file can be given away for real.
	if err := os.Chown(file, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadToken(file); err == nil || !strings.Contains(err.Error(), "owned by another user (uid 65534, you are 0)") {
		t.Errorf("a file chowned to 65534: %v", err)
	}
}
