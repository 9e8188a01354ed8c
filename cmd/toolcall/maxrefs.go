package main

import (
	"github.com/spf13/pflag"

	"github.com/toolcall/toolcall/tools"
)

// addMaxRefBytes defines --max-ref-bytes, which validate, exec and run
// share: how much the refs of one call may pass to the tool, all
// together, counted as it receives them (JSON strings, escaped).
func (o *execOptions) addMaxRefBytes(fs *pflag.FlagSet) {
	o.maxRefs = tools.DefaultMaxRefBytes
	fs.Var(&o.maxRefs, "max-ref-bytes", "let the ref: arguments of one call pass at most this much to the tool, all together, counted as JSON strings (a control character takes 6 bytes), e.g. 64MiB")
}
