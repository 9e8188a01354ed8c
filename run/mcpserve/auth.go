package mcpserve

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolcall/toolcall/internal/atomicfile"
	"github.com/toolcall/toolcall/internal/loopback"
)

// minTokenLen is the shortest token --token-file may hold: shorter ones
// can be guessed by a local process trying them one after another.
const minTokenLen = 16

// NewToken is a bearer token for one run of the server: 32 bytes from
// the system's secure random source, in hex.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("cannot make a bearer token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// ReadToken reads the bearer token a person put in path (surrounding
// blanks and the final newline are not part of it). A file other users
// may read, a file another user owns (who may read it, and change the
// token, whatever its mode says now), or a token too short to resist
// guessing, is refused: each would let the accounts the token keeps out
// call the tools.
func ReadToken(path string) (string, error) {
	return readToken(path, os.Getuid())
}

// readToken is ReadToken for the user uid (-1 where the system has no
// user ids): the file must be theirs. The checks are of the file opened,
// which is the one read, whatever the name points at by then.
func readToken(path string, uid int) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s: not a regular file", path)
	}
	if owner, ok := fileOwner(fi); ok && uid >= 0 && owner != uid {
		return "", fmt.Errorf("%s: owned by another user (uid %d, you are %d), who can read the token and change it: make a token file of your own (umask 077; openssl rand -hex 32 > FILE)", path, owner, uid)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s: other users may read it (mode %v): chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) < minTokenLen || strings.ContainsAny(tok, " \t\r\n") {
		return "", fmt.Errorf("%s: want one token of at least %d characters and no blanks, such as the output of 'openssl rand -hex 32'", path, minTokenLen)
	}
	return tok, nil
}

// TokenDir is the private directory a generated token file is written
// to: $XDG_RUNTIME_DIR/toolcall (a per-user directory that lives as long
// as the login), else toolcall under the user's cache directory. It is
// made with mode 0700, and refused if it exists with more.
func TokenDir() (string, error) {
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base == "" {
		var err error
		if base, err = os.UserCacheDir(); err != nil {
			return "", fmt.Errorf("no directory for the bearer token (neither XDG_RUNTIME_DIR nor a cache directory): %w; give one with --token-file", err)
		}
	}
	dir := filepath.Join(base, "toolcall")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("cannot make a directory for the bearer token: %w; give one with --token-file", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s: not a directory (a symbolic link?): remove it, or give a token with --token-file", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s: other users may enter it (mode %v): chmod 700 %s, or give a token with --token-file", dir, fi.Mode().Perm(), dir)
	}
	return dir, nil
}

// WriteToken writes token to dir/name, mode 0600, whole or not at all:
// it is written to a new file of its own first, beside the name (never
// through a link an attacker placed), and renamed into place (see
// atomicfile).
func WriteToken(dir, name, token string) (string, error) {
	path := filepath.Join(dir, name)
	f, err := atomicfile.Create(path, 0o600)
	if err != nil {
		return "", fmt.Errorf("cannot write the bearer token: %w", err)
	}
	defer f.Abort()
	if _, err := f.Write([]byte(token + "\n")); err != nil {
		return "", fmt.Errorf("cannot write the bearer token: %w", err)
	}
	if err := f.Commit(); err != nil {
		return "", fmt.Errorf("cannot write the bearer token: %w", err)
	}
	return path, nil
}

// errNoToken is the mistake of a listener given neither a token nor the
// choice to go without one.
var errNoToken = errors.New("mcpserve: no bearer token, and NoAuth not chosen")

// bearer lets through the requests that carry the token, and answers any
// other with 401. Both sides are hashed before the comparison, so that
// it takes the same time whatever the length or the first wrong byte of
// what was sent.
func bearer(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
		ok := strings.EqualFold(scheme, "Bearer")
		if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 || !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolcall mcp serve"`)
			http.Error(w, "Unauthorized: send the bearer token toolcall mcp serve wrote to its token file (it says where on its stderr) as the header Authorization: Bearer TOKEN", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// originCheck answers 403 to a request from a browser page the user did
// not name: a page on any site can make a browser send requests to a
// loopback port (and, through DNS rebinding, read the answers), so the
// transport requires the Origin a browser sets to be checked. Allowed: no
// Origin (clients that are not browsers send none), pages served from
// this machine (loopback hosts), and the origins in allowed.
func originCheck(allowed []string, next http.Handler) http.Handler {
	ok := map[string]bool{}
	for _, o := range allowed {
		ok[normalOrigin(o)] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && !ok[normalOrigin(origin)] && !loopbackOrigin(origin) {
			http.Error(w, fmt.Sprintf("Forbidden: a request from a page of %s; toolcall mcp serve takes requests from browser pages on this machine only, or from the origins named with --allow-origin", origin), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// normalOrigin is an origin as browsers send it: scheme and host in lower
// case, no path.
func normalOrigin(o string) string {
	return strings.ToLower(strings.TrimRight(strings.TrimSpace(o), "/"))
}

// loopbackOrigin reports whether origin is an http or https page on this
// machine: localhost, 127.0.0.0/8 or ::1, any port.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Path != "" && u.Path != "/" {
		return false
	}
	return loopback.Host(u.Hostname())
}

// CheckOrigin reports whether o is an origin as a browser sends it in
// the Origin header: scheme://host or scheme://host:port, nothing more.
func CheckOrigin(o string) error {
	u, err := url.Parse(o)
	if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("%q: want an origin as browsers send it, scheme://host[:port], such as http://app.example:3000", o)
	}
	return nil
}
