// Command novactl-tui is novactl's terminal UI ("novactl tui" runs it).
// It is a program of its own so that novactl does not link Bubble Tea,
// whose package init queries the terminal (cli.TUIBinary says why). This
// shim wires the process to packages cli and tui.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/nova-recall/nova/cli"
	"github.com/nova-recall/nova/tui"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	inv := &cli.Invocation{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Environ: os.Environ()}
	code := cli.RunTUI(ctx, os.Args[1:], inv, func(ctx context.Context, s cli.TUISession) error {
		return tui.Run(ctx, tui.RunOptions{
			Options: tui.Options{Backend: s.Backend, StatusInterval: s.Refresh},
			Input:   s.Stdin, Output: s.Stderr, Environ: s.Environ,
		})
	})
	stop()
	os.Exit(code)
}
