package index

import (
	"io"
	"os"
)

// FillDiskAtTempFiles sends the writes of a build's temporary vector
// files to w (a full disk, in tests) until restore is called.
func FillDiskAtTempFiles(w io.Writer) (restore func()) {
	prev := tempWriter
	tempWriter = func(*os.File) io.Writer { return w }
	return func() { tempWriter = prev }
}
