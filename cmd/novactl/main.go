// Command novactl is Nova's operator tool. All logic lives in package cli;
// this shim wires the process to it, and links the SQLite driver.
package main

import (
	"context"
	"os"

	// The SQLite driver, for the hermes source kind (Hermes' state.db):
	// linked here, into the one binary that reads sources, not in package
	// cli (novactl-tui links it) nor index (novad links it).
	_ "modernc.org/sqlite"

	"github.com/nova-recall/nova/cli"
)

func main() {
	ctx, stop := cli.NotifyContext(context.Background(), os.Exit)
	dir, _ := os.Getwd() // "" when it was removed: no project file is read
	code := cli.Run(ctx, os.Args[1:], &cli.Invocation{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Environ: os.Environ(), Dir: dir})
	stop()
	os.Exit(code)
}
