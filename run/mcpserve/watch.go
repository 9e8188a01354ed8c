package mcpserve

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"os"

	"github.com/toolcall/toolcall/catalog"
)

// fingerprint sums what a change to the tools would change: the name,
// size, mode and time of every file in the directories (or of each
// definition file), and of each loaded tool's executable, which may live
// elsewhere. Polling this is cheap and needs no file-watching library.
func fingerprint(dirs []string, c *catalog.Catalog) string {
	h := sha256.New()
	for _, dir := range dirs {
		fi, err := os.Stat(dir)
		if err != nil {
			fmt.Fprintf(h, "%s: %v\n", dir, err)
			continue
		}
		stamp(h, dir, fi)
		if !fi.IsDir() {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			fmt.Fprintf(h, "%s: %v\n", dir, err)
			continue
		}
		for _, e := range entries {
			if info, err := e.Info(); err == nil {
				stamp(h, e.Name(), info)
			}
		}
	}
	if c != nil {
		for _, t := range c.All() {
			if t.Command == "" {
				continue
			}
			if fi, err := os.Stat(t.Command); err == nil {
				stamp(h, t.Command, fi)
			} else {
				fmt.Fprintf(h, "%s: gone\n", t.Command)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func stamp(h hash.Hash, name string, fi os.FileInfo) {
	fmt.Fprintf(h, "%s %d %v %d\n", name, fi.Size(), fi.Mode(), fi.ModTime().UnixNano())
}
