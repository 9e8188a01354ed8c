// Package loopback is toolcall's one rule for "this machine": which hosts
// an MCP server may be reached at, and which addresses mcp serve may
// listen on without --listen-any. Once three places each had a rule of
// their own, and they disagreed (one took "LOCALHOST", another did not).
// It imports nothing of toolcall's, and nothing that opens a connection.
package loopback

import (
	"errors"
	"net/netip"
	"strings"
)

// ErrNotLoopback is the error of an address that is not of this machine:
// a URL, a listen address, or where a host name resolved to.
var ErrNotLoopback = errors.New("not a loopback address")

// Host reports whether host, as written in a URL or a listen address
// (without the port, an IPv6 literal without its brackets), names this
// machine: "localhost" in any case, since host names are not case
// sensitive, or a loopback IP literal (Addr). What a name resolves to is
// for the dialer to check, with Addr, when it connects.
func Host(host string) bool {
	return strings.EqualFold(host, "localhost") || Addr(host)
}

// Addr reports whether addr is an IP literal of a loopback address:
// 127.0.0.0/8, ::1, or either mapped into IPv6 (::ffff:127.0.0.1). A zone
// ("::1%lo") does not change what the address is.
func Addr(addr string) bool {
	ip, err := netip.ParseAddr(addr)
	return err == nil && ip.Unmap().IsLoopback()
}
