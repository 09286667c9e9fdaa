//go:build !unix

package cli

import "io"

// termWidth returns 0, unknown, where the terminal's width is not read.
func termWidth(io.Writer) int { return 0 }
