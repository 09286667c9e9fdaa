// Command novad is Nova's recall daemon. All logic lives in package daemon;
// this shim wires the process to it.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/nova-recall/nova/daemon"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := daemon.Main(ctx, os.Args[1:], os.Environ(), os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
