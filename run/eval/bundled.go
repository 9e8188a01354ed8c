package eval

import (
	"embed"
	"sync"
)

// The bundled cases: a subset of BFCL v4 (the first 25 cases of seven
// categories, with their answers and licence: bfcl/README.md), built
// into the binary so that `toolcall eval` needs no download.
//
//go:embed bfcl/*.json bfcl/possible_answer/*.json bfcl/LICENSE bfcl/README.md
var bundled embed.FS

// BundledName is how the bundled cases are named in events and messages.
const BundledName = "bundled BFCL v4 subset"

var bundledCases = sync.OnceValues(func() ([]*Case, error) {
	return loadDir(bundled, "bfcl", "bfcl")
})

// Bundled returns the bundled cases. They are read once per process and
// shared: a caller must not change them.
func Bundled() ([]*Case, error) { return bundledCases() }

// BundledLicense is the licence the bundled cases come under
// (Apache-2.0), and the note on where they come from: shipped with them
// in the binary, as the licence asks.
func BundledLicense() string {
	license, _ := bundled.ReadFile("bfcl/LICENSE")
	readme, _ := bundled.ReadFile("bfcl/README.md")
	return string(readme) + "\n" + string(license)
}
