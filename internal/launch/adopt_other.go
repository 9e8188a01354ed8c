//go:build !linux

package launch

// Elsewhere there is no child subreaper: a descendant that left its
// process group (setsid, a double fork) goes to init and is not killed.
func becomeSubreaper() bool { return false }

func sweepOrphans() {}
