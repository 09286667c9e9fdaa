// Package secrets owns novad's internal token: 32 random bytes generated at
// every start, written to a 0600 file in a private 0700 directory without
// ever following a symlink, read back only after its owner and mode are
// checked, and compared in constant time. The token value never appears in
// argv, the environment, logs, state files or responses.
package secrets

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nova-recall/nova/atomicfile"
	"github.com/nova-recall/nova/paths"
)

// Token is an internal token. Its String method redacts it so that a token
// passed to a logger by mistake cannot leak.
//
// The value sits behind a pointer: a struct that holds a Token in an
// unexported field is printed by fmt without calling Format, field by
// field, and would show the value; it shows an address instead.
type Token struct{ value *string }

// wrapToken wraps v.
func wrapToken(v string) Token { return Token{value: &v} }

// raw is the value, "" for the zero Token.
func (t Token) raw() string {
	if t.value == nil {
		return ""
	}
	return *t.value
}

// String redacts the token.
func (t Token) String() string { return "[redacted]" }

// GoString redacts the token for %#v.
func (t Token) GoString() string { return "secrets.Token{[redacted]}" }

// Format redacts the token for every verb: a verb that does not call
// String, such as %d, would otherwise print the struct's field, the token.
func (t Token) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, t.GoString()) // fmt has no use for the error
		return
	}
	_, _ = io.WriteString(f, t.String())
}

// Reveal returns the token value for the one place that needs it: the
// request header or the constant-time comparison.
func (t Token) Reveal() string { return t.raw() }

// IsZero reports whether the token is empty.
func (t Token) IsZero() bool { return t.raw() == "" }

// tokenBytes is the number of random bytes in a token.
const tokenBytes = 32

// Generate returns a fresh token of 32 random bytes, hex-encoded.
func Generate() (Token, error) {
	var b [tokenBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Token{}, fmt.Errorf("generate token: %w", err)
	}
	return wrapToken(hex.EncodeToString(b[:])), nil
}

// Equal compares a presented value with the token in constant time. Both
// sides are hashed first so that their lengths do not leak through timing.
func (t Token) Equal(presented string) bool {
	if t.raw() == "" || presented == "" {
		return false
	}
	a := sha256.Sum256([]byte(t.raw()))
	b := sha256.Sum256([]byte(presented))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// Errors returned by ReadToken. Callers branch on them with errors.Is.
var (
	// ErrMissing means the token file does not exist.
	ErrMissing = errors.New("token file is missing")
	// ErrUnsafe means the token file exists but cannot be trusted: a
	// symlink, not a regular file, owned by another user, or readable by
	// group or others.
	ErrUnsafe = errors.New("token file is unsafe")
)

// UnsafeError says why a token file was refused.
type UnsafeError struct {
	Path   string
	Reason string
}

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("token file %s is unsafe: %s", e.Path, e.Reason)
}

// Unwrap makes errors.Is(err, ErrUnsafe) true.
func (e *UnsafeError) Unwrap() error { return ErrUnsafe }

// EnsurePrivateDir creates dir with mode 0700 if needed and checks that it
// is a real directory (not a symlink) owned by us. A directory we own with
// a wider mode is narrowed; one owned by someone else is refused.
func EnsurePrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create state directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("inspect state directory: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		return &UnsafeError{Path: dir, Reason: "state directory is not a real directory"}
	}
	if !ownedByUs(fi) {
		return &UnsafeError{Path: dir, Reason: "state directory is owned by another user"}
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("narrow state directory mode: %w", err)
		}
	}
	return nil
}

// WriteToken writes t to path atomically with mode 0600 (see package
// atomicfile): the temp file is verified with fstat before it is renamed
// over path, and a symlink planted at path is replaced, never followed.
func WriteToken(path string, t Token) error {
	if err := EnsurePrivateDir(filepath.Dir(path)); err != nil {
		return err
	}
	err := atomicfile.Write(path, []byte(t.raw()+"\n"), 0o600, atomicfile.ReplaceSymlink(),
		atomicfile.WithCheck(func(fi fs.FileInfo) error {
			if fi.Mode().Perm() != 0o600 || !ownedByUs(fi) {
				return &UnsafeError{Path: path, Reason: "could not establish mode 0600 owned by the current user"}
			}
			return nil
		}))
	if err != nil {
		return fmt.Errorf("token file: %w", err)
	}
	return nil
}

// ReadToken reads the token at path after checking, without following a
// symlink, that it is a regular file owned by us with no group or other
// permission bits, and refuses content other than a token as WriteToken
// writes it.
func ReadToken(path string) (Token, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Token{}, fmt.Errorf("%w: %s", ErrMissing, path)
	}
	if err != nil {
		return Token{}, fmt.Errorf("inspect token file: %w", err)
	}
	if err := checkTokenInfo(path, fi); err != nil {
		return Token{}, err
	}
	// NonBlock: a named pipe swapped in after the Lstat must not block
	// the open (and every client with it); the opened file is checked
	// below.
	f, err := os.OpenFile(path, os.O_RDONLY|paths.NoFollow|paths.NonBlock, 0)
	if err != nil {
		return Token{}, &UnsafeError{Path: path, Reason: "cannot open without following links: " + err.Error()}
	}
	defer f.Close()
	// Re-check the opened file: it must be the same one we inspected.
	ofi, err := f.Stat()
	if err != nil {
		return Token{}, fmt.Errorf("stat token file: %w", err)
	}
	if !os.SameFile(fi, ofi) {
		return Token{}, &UnsafeError{Path: path, Reason: "file changed while it was opened"}
	}
	if err := checkTokenInfo(path, ofi); err != nil {
		return Token{}, err
	}
	// Refuse anything but what WriteToken writes; reading one byte more
	// than any token file holds shows an oversized file instead of
	// silently taking its prefix as the token.
	buf := make([]byte, 257)
	n, _ := io.ReadFull(f, buf)
	v := strings.TrimSpace(string(buf[:n]))
	if n == len(buf) || !wellFormed(v) {
		return Token{}, &UnsafeError{Path: path, Reason: "it does not hold a 64-character hex token"}
	}
	return wrapToken(v), nil
}

// wellFormed reports whether v looks like a value Generate returns.
func wellFormed(v string) bool {
	if len(v) != 2*tokenBytes {
		return false
	}
	_, err := hex.DecodeString(v)
	return err == nil && v == strings.ToLower(v)
}

func checkTokenInfo(path string, fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return &UnsafeError{Path: path, Reason: "it is a symlink"}
	case !fi.Mode().IsRegular():
		return &UnsafeError{Path: path, Reason: "it is not a regular file"}
	case !ownedByUs(fi):
		return &UnsafeError{Path: path, Reason: "it is owned by another user"}
	case fi.Mode().Perm()&0o077 != 0:
		return &UnsafeError{Path: path, Reason: fmt.Sprintf("mode %04o gives access to group or others (want 0600)", fi.Mode().Perm())}
	}
	return nil
}
