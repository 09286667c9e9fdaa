//go:build !unix

package cli

import "os"

// hangupSignals: no terminal hangup or broken pipe arrives as a signal
// here.
var hangupSignals []os.Signal
