package main

import (
	"errors"
	"net"
	"testing"

	"github.com/toolcall/toolcall/internal/loopback"
	"github.com/toolcall/toolcall/run"
	"github.com/toolcall/toolcall/run/mcpserve"
	"github.com/toolcall/toolcall/tools/mcpclient"
)

// The places that decide "this machine" agree, host for host: an MCP
// server's URL (mcpclient.CheckURL, and run's redirect check), mcp serve's
// --listen address, and the two ErrNotLoopback a caller can test for.
// Once "LOCALHOST" was this machine in a URL but not for --listen.
func TestOneLoopbackRule(t *testing.T) {
	if run.ErrNotLoopback != mcpserve.ErrNotLoopback || run.ErrNotLoopback != loopback.ErrNotLoopback {
		t.Error("run.ErrNotLoopback and mcpserve.ErrNotLoopback are different errors")
	}
	for _, host := range []string{"localhost", "LOCALHOST", "LocalHost", "127.0.0.1", "127.9.9.9", "::1", "::ffff:127.0.0.1",
		"0.0.0.0", "::", "10.0.0.1", "::ffff:10.0.0.1", "example.com", "localhost.", "127.0.0.1.nip.io"} {
		want := loopback.Host(host)
		hostport := net.JoinHostPort(host, "8765")
		urlErr := mcpclient.CheckURL("http://" + hostport + "/mcp")
		listenErr := mcpserve.CheckListen(hostport, false)
		if (urlErr == nil) != want {
			t.Errorf("%s: as an MCP server's URL: %v; the rule says loopback=%v", host, urlErr, want)
		}
		if (listenErr == nil) != want {
			t.Errorf("%s: as a --listen address: %v; the rule says loopback=%v", host, listenErr, want)
		}
		if listenErr != nil && !errors.Is(listenErr, run.ErrNotLoopback) {
			t.Errorf("%s: the --listen error is not ErrNotLoopback: %v", host, listenErr)
		}
	}
}
