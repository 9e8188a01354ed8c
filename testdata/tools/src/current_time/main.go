// Command current_time prints the current date and time in UTC. It takes
// no arguments, and its sidecar registers it without a schema, in
// read-only mode: the example of a tool toolcall calls unvalidated.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	// The arguments line is read, though not looked at, so the caller's
	// write does not fail on a closed pipe; only one line, since the caller
	// may keep stdin open.
	bufio.NewReader(io.LimitReader(os.Stdin, 1<<20)).ReadSlice('\n')
	fmt.Println(time.Now().UTC().Format(time.RFC3339))
}
