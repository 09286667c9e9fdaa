package paths

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// NotFileError is returned by ReadRegular for a path that is not a
// regular file (a named pipe, a device, a socket or a folder), whose open
// or read could wait for a writer that never comes, or never end.
type NotFileError struct {
	// Path is the path that was read.
	Path string
	// Mode is the type of what is there.
	Mode fs.FileMode
}

func (e *NotFileError) Error() string {
	return fmt.Sprintf("%s is %s, not a file", e.Path, KindOf(e.Mode))
}

// NotAFolder says, for a message, which of dir and the folders above it
// is a file ("/x/nova is a file, not a folder"), where a path through dir
// failed with ENOTDIR; "dir is not a folder" when none is found to be.
func NotAFolder(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && !fi.IsDir() {
			return d + " is a file, not a folder"
		}
		if filepath.Dir(d) == d {
			return dir + " is not a folder"
		}
	}
}

// KindOf names, for a message, the type of a path that is not a regular
// file: "a named pipe", "a directory".
func KindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "of type " + m.Type().String()
}

// TooLargeError is returned by ReadRegular for a file larger than the
// limit its caller gave.
type TooLargeError struct {
	// Path is the path that was read.
	Path string
	// Size is the file's size in bytes.
	Size int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is %d bytes, more than it can be", e.Path, e.Size)
}

// ReadRegular reads the file at path (a link is followed), which must be
// a regular file of at most limit bytes (limit <= 0: any size), and
// returns its content and what the opened file is. It is the read of a
// file a user can put anything at (config.yaml, manifest.json): the open
// does not wait (a named pipe with no writer would block it, and every
// command with it), and the opened file, not the path's earlier state,
// is judged, so a pipe swapped in after a Stat is refused too
// (*NotFileError). A missing file's error wraps fs.ErrNotExist.
func ReadRegular(path string, limit int64) ([]byte, fs.FileInfo, error) {
	f, fi, err := OpenRegular(path)
	if err != nil {
		return nil, fi, err
	}
	defer f.Close()
	if limit > 0 && fi.Size() > limit {
		return nil, fi, &TooLargeError{Path: path, Size: fi.Size()}
	}
	// A file that grows while it is read is cut at one byte past the
	// limit, which is then refused as too large.
	r := io.Reader(f)
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fi, err
	}
	if limit > 0 && int64(len(b)) > limit {
		return nil, fi, &TooLargeError{Path: path, Size: int64(len(b))}
	}
	return b, fi, nil
}

// OpenRegular opens the file at path (a link is followed) for reading,
// which must be a regular file, and returns it with what it is: the open
// of a file a user can put anything at, read in a stream rather than
// whole (ReadRegular). The open does not wait on a named pipe, and the
// opened file is judged, so a pipe swapped in after a listing or a Stat
// is refused too (*NotFileError). A missing file's error wraps
// fs.ErrNotExist.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|NonBlock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fi, &NotFileError{Path: path, Mode: fi.Mode()}
	}
	return f, fi, nil
}
