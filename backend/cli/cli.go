// Package cli implements foya's command line: exec, sessions, show, --version.
package cli

import (
	"context"
	"io"
	"os"
)

// Main runs the command line with the process's standard streams and returns the exit code.
func Main(args []string) int {
	return Run(context.Background(), args, os.Stdin, os.Stdout, os.Stderr)
}

// Run runs one command; args exclude the program name.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return 2
}
