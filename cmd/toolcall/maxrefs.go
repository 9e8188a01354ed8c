package main

import (
	"github.com/spf13/pflag"

	"github.com/toolcall/toolcall/tools"
)

// addMaxRefBytes defines --max-ref-bytes, which validate, exec and run
// share: how much the refs of one call may expand to, all together.
func (o *execOptions) addMaxRefBytes(fs *pflag.FlagSet) {
	o.maxRefs = tools.DefaultMaxRefBytes
	fs.Var(&o.maxRefs, "max-ref-bytes", "let the ref: arguments of one call stand for at most this much saved text, all together, e.g. 64MiB")
}
