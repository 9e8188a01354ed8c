package eval

import (
	"sync"

	"github.com/toolcall/toolcall/testdata/bfcl"
)

// The bundled cases: a subset of BFCL v4 (the first 25 cases of seven
// categories, with their answers and licence: testdata/bfcl/README.md),
// built into the binary so that `toolcall eval` needs no download.
var bundledCases = sync.OnceValues(func() ([]*Case, error) {
	return loadDir(bfcl.Files, ".", "bfcl")
})

// Bundled returns the bundled cases. They are read once per process and
// shared: a caller must not change them.
func Bundled() ([]*Case, error) { return bundledCases() }

// BundledLicense is the licence the bundled cases come under
// (Apache-2.0), and the note on where they come from: shipped with them
// in the binary, as the licence asks.
func BundledLicense() string {
	license, _ := bfcl.Files.ReadFile("LICENSE")
	readme, _ := bfcl.Files.ReadFile("README.md")
	return string(readme) + "\n" + string(license)
}
