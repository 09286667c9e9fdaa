//go:build unix

package cli

import (
	"os"
	"syscall"
)

// hangupSignals end a long run as Ctrl-C does, beside the SIGINT and
// SIGTERM every command takes (NotifyContext): SIGHUP when its terminal
// closes, SIGPIPE when the reader of its output goes away (a `| tee`
// stopped first). Left to their default, either ends the process at
// once, before it can stop what it started.
var hangupSignals = []os.Signal{syscall.SIGHUP, syscall.SIGPIPE}
