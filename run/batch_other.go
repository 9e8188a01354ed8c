//go:build !unix

package run

// openNonBlock: elsewhere there are no FIFOs to open in a directory.
const openNonBlock = 0
