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

// SetHistoryLimit makes history.jsonl keep to limit bytes until restore is
// called (the default takes thousands of syncs to reach).
func SetHistoryLimit(limit int64) (restore func()) {
	prev := historyLimit
	historyLimit = limit
	return func() { historyLimit = prev }
}

// BaseEveryForTest is baseEvery.
const BaseEveryForTest = baseEvery
