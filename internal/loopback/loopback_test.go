package loopback

import "testing"

func TestHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost":        true,
		"LOCALHOST":        true,
		"LocalHost":        true,
		"127.0.0.1":        true,
		"127.1.2.3":        true,
		"::1":              true,
		"::ffff:127.0.0.1": true,
		"::1%lo":           true,
		"":                 false, // every interface
		"0.0.0.0":          false,
		"::":               false,
		"10.0.0.1":         false,
		"::ffff:10.0.0.1":  false,
		"localhost.":       false, // a name for DNS to resolve
		"localhost.evil":   false,
		"127.0.0.1.nip.io": false,
		"[::1]":            false, // brackets belong to the URL, not the host
		"example.com":      false,
	} {
		if got := Host(host); got != want {
			t.Errorf("Host(%q) = %v, want %v", host, got, want)
		}
	}
	// A resolved address is an IP: a name is never one.
	if Addr("localhost") {
		t.Error(`Addr("localhost") = true: only an IP literal is an address`)
	}
}
