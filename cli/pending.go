package cli

import (
	"context"
	"fmt"
)

// notYet reports a command that has not been built yet, plainly.
func notYet(name string) func(context.Context, *Invocation, []string) int {
	return func(_ context.Context, inv *Invocation, _ []string) int {
		fmt.Fprintf(inv.Stderr, "novactl %s is not implemented yet.\n", name)
		return ExitFailure
	}
}
