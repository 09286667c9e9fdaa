package index

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index/ingest"
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

// BirthTimeForTest is the birth time a sync reads of the file at path (0:
// its file system gives none).
func BirthTimeForTest(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return birthTime(path, fi)
}

// WithoutBirthTimes makes syncs read no file's birth time, as on a file
// system that gives none, until restore is called.
func WithoutBirthTimes() (restore func()) {
	prev := birthTime
	birthTime = func(string, fs.FileInfo) int64 { return 0 }
	return func() { birthTime = prev }
}

// InodeForTest is the inode a sync reads of the file at path (0: none).
func InodeForTest(path string) uint64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	_, ino := deviceInode(fi)
	return ino
}

// FailOpens returns opts with which syncs fail to open the source files
// for which fail returns an error, as os.Open would with it.
func FailOpens(opts Options, fail func(path string) error) Options {
	opts.readFilePiece = func(ctx context.Context, src config.Source, f ingest.File, from ingest.Cursor, limit int64, sink ingest.Sink) (ingest.Cursor, bool, error) {
		if err := fail(f.Path); err != nil {
			return from, false, &fs.PathError{Op: "open", Path: f.Path, Err: err}
		}
		return ingest.ReadFilePiece(ctx, src, f, from, limit, sink)
	}
	return opts
}

// FailListing returns opts with which syncs fail to list the sources for
// which fail returns an error, as ingest.List does when it cannot open a
// source's folder.
func FailListing(opts Options, fail func(src config.Source) error) Options {
	opts.listSource = func(src config.Source) (ingest.Listing, error) {
		if err := fail(src); err != nil {
			return ingest.Listing{}, fmt.Errorf("source %s: %w", src.Name, &fs.PathError{Op: "open", Path: src.Path, Err: err})
		}
		return ingest.List(src)
	}
	return opts
}

// MarkDataless returns opts with which syncs list the source files for
// which dataless returns true as a File Provider's files kept only in the
// cloud (ingest.File.Dataless), as a Mac's listing marks them.
func MarkDataless(opts Options, dataless func(path string) bool) Options {
	opts.listSource = func(src config.Source) (ingest.Listing, error) {
		l, err := ingest.List(src)
		for i := range l.Files {
			l.Files[i].Dataless = dataless(l.Files[i].Path)
		}
		return l, err
	}
	return opts
}
