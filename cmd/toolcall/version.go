package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func newVersionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of toolcall",
		Long: `Version prints "toolcall" and the version of this binary: the one it was
built with (make build uses git describe), the module version for a binary
from go install, or "devel".`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(stdout, "toolcall %s\n", versionString())
			return err
		},
	}
}
