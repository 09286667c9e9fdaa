// The token file is only usable where owners and modes are checked: on
// other platforms ownedByUs is always false and WriteToken refuses.

//go:build unix

package secrets

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
)

// newToken returns a fresh token or stops the test.
func newToken(t *testing.T) Token {
	t.Helper()
	tok, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// writeFile writes content to path with exactly mode perm, whatever the
// umask.
func writeFile(t *testing.T, path, content string, perm fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
}

// perm returns the permission bits of path, without following a symlink.
func perm(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// noLeak fails the test if err's message contains the token value.
func noLeak(t *testing.T, err error, tok Token) {
	t.Helper()
	if err != nil && tok.Reveal() != "" && strings.Contains(err.Error(), tok.Reveal()) {
		t.Errorf("error message contains the token: %v", err)
	}
}

// wantUnsafe checks that err is an *UnsafeError for path, matches ErrUnsafe
// and not ErrMissing, and does not reveal tok.
func wantUnsafe(t *testing.T, err error, path string, tok Token) {
	t.Helper()
	var ue *UnsafeError
	switch {
	case err == nil:
		t.Fatal("accepted an unsafe token file")
	case !errors.Is(err, ErrUnsafe) || errors.Is(err, ErrMissing):
		t.Errorf("error %v: want ErrUnsafe only", err)
	case !errors.As(err, &ue) || ue.Path != path || ue.Reason == "":
		t.Errorf("error %v: want an *UnsafeError for %s with a reason", err, path)
	}
	noLeak(t, err, tok)
}

// tempEntries lists the files WriteToken may have left next to path.
func tempEntries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var tmp []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".token-") || strings.HasSuffix(e.Name(), ".tmp") {
			tmp = append(tmp, e.Name())
		}
	}
	return tmp
}

// TestGenerate: tokens are 32 random bytes as 64 lowercase hex characters,
// and never repeat.
func TestGenerate(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		tok := newToken(t)
		v := tok.Reveal()
		if b, err := hex.DecodeString(v); err != nil || len(b) != 32 || v != strings.ToLower(v) {
			t.Fatalf("token %q is not 32 bytes of lowercase hex", v)
		}
		if tok.IsZero() {
			t.Fatal("a generated token is zero")
		}
		if seen[v] {
			t.Fatalf("token %q generated twice", v)
		}
		seen[v] = true
	}
	if !(Token{}).IsZero() {
		t.Error("the zero Token is not IsZero")
	}
}

// TestEqual: only the exact value matches; a zero token matches nothing.
func TestEqual(t *testing.T) {
	tok, other := newToken(t), newToken(t)
	v := tok.Reveal()
	tests := []struct {
		name      string
		tok       Token
		presented string
		want      bool
	}{
		{"same value", tok, v, true},
		{"another token", tok, other.Reveal(), false},
		{"empty", tok, "", false},
		{"prefix", tok, v[:len(v)-1], false},
		{"half", tok, v[:32], false},
		{"longer", tok, v + "0", false},
		{"trailing newline", tok, v + "\n", false},
		{"upper case", tok, strings.ToUpper(v), false},
		{"doubled", tok, v + v, false},
		{"zero token, empty", Token{}, "", false},
		{"zero token, a value", Token{}, v, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.tok.Equal(tt.presented); got != tt.want {
				t.Errorf("Equal = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestRedaction: formatting a token, directly, by pointer or inside a
// struct, with any verb, or logging it with slog, never prints its value.
func TestRedaction(t *testing.T) {
	tok := newToken(t)
	holder := struct{ T Token }{tok}
	// In an unexported field fmt cannot call Format: it prints the
	// fields themselves (an embedder holding novad's token, say).
	hidden := struct{ t Token }{tok}
	var out []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%o", "%b", "%e", "%t", "%c", "%U", "%10.3s"} {
		for _, arg := range []any{tok, &tok, holder, &holder, hidden, &hidden, []Token{tok}, map[string]Token{"t": tok}} {
			out = append(out, fmt.Sprintf(verb, arg))
		}
	}
	var logs bytes.Buffer
	slog.New(slog.NewTextHandler(&logs, nil)).Info("m", "token", tok, "holder", holder)
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("m", "token", tok, "holder", holder)
	out = append(out, logs.String())
	b, err := json.Marshal(holder)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, string(b))
	var leaks []string
	for _, s := range out {
		if strings.Contains(s, tok.Reveal()) {
			leaks = append(leaks, s)
		}
	}
	if len(leaks) > 0 {
		t.Errorf("the token leaked in %d of %d outputs, first: %s", len(leaks), len(out), leaks[0])
	}
	if got := fmt.Sprintf("%v|%#v", tok, tok); got != "[redacted]|secrets.Token{[redacted]}" {
		t.Errorf("redacted forms: %s", got)
	}
}

// TestWriteReadRoundTrip: WriteToken creates the missing directories, the
// state directory 0700 and the file exactly 0600 holding the token and a
// newline; ReadToken gives back an equal token.
func TestWriteReadRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home", "state")
	path := filepath.Join(dir, "internal-token")
	tok := newToken(t)
	if err := WriteToken(path, tok); err != nil {
		t.Fatal(err)
	}
	if p := perm(t, dir); p != 0o700 {
		t.Errorf("directory mode %04o, want 0700", p)
	}
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v, %v; want a regular file with mode 0600", fi.Mode(), err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != tok.Reveal()+"\n" {
		t.Errorf("file holds %q (%v)", b, err)
	}
	got, err := ReadToken(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Reveal() != tok.Reveal() || !got.Equal(tok.Reveal()) {
		t.Error("ReadToken did not return the token WriteToken wrote")
	}
	if tmp := tempEntries(t, dir); len(tmp) != 0 {
		t.Errorf("temp files left: %v", tmp)
	}
}

// TestWriteTokenNarrowsDirectory: an existing state directory we own with
// group or other bits is narrowed to 0700.
func TestWriteTokenNarrowsDirectory(t *testing.T) {
	for _, mode := range []fs.FileMode{0o700, 0o711, 0o750, 0o755, 0o777} {
		t.Run(fmt.Sprintf("%04o", mode), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			if err := os.Mkdir(dir, mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, mode); err != nil {
				t.Fatal(err)
			}
			if err := WriteToken(filepath.Join(dir, "internal-token"), newToken(t)); err != nil {
				t.Fatal(err)
			}
			if p := perm(t, dir); p != 0o700 {
				t.Errorf("directory mode %04o, want 0700", p)
			}
		})
	}
}

// TestWriteTokenRefusesUnsafeDirectory: a state directory that is a
// symlink (even to a private directory) or, when the test can arrange it,
// owned by someone else is refused and nothing is written.
func TestWriteTokenRefusesUnsafeDirectory(t *testing.T) {
	t.Run("symlink", func(t *testing.T) {
		base := t.TempDir()
		realDir := filepath.Join(base, "realDir")
		if err := os.Mkdir(realDir, 0o700); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(base, "state")
		if err := os.Symlink(realDir, dir); err != nil {
			t.Fatal(err)
		}
		tok := newToken(t)
		err := WriteToken(filepath.Join(dir, "internal-token"), tok)
		wantUnsafe(t, err, dir, tok)
		if entries, _ := os.ReadDir(realDir); len(entries) != 0 {
			t.Errorf("wrote through the symlink: %v", entries)
		}
	})
	t.Run("another owner", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "state")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		chownOrSkip(t, dir)
		tok := newToken(t)
		err := WriteToken(filepath.Join(dir, "internal-token"), tok)
		wantUnsafe(t, err, dir, tok)
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("wrote into another user's directory: %v", entries)
		}
	})
	t.Run("a file", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "state")
		writeFile(t, dir, "not a directory", 0o600)
		tok := newToken(t)
		err := WriteToken(filepath.Join(dir, "internal-token"), tok)
		if err == nil {
			t.Fatal("wrote under a regular file")
		}
		noLeak(t, err, tok)
	})
}

// chownOrSkip gives path to another user, which only root can do.
func chownOrSkip(t *testing.T, path string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("changing a file's owner needs root")
	}
	if err := os.Lchown(path, 65534, 65534); err != nil {
		t.Skipf("cannot change owner: %v", err)
	}
}

// TestWriteTokenReplacesAtomically: rewriting renames a new file over the
// old one, so the old token is gone from the path, a reader that opened the
// old file still sees all of it, and no temp file is left.
func TestWriteTokenReplacesAtomically(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, "internal-token")
	old, tok := newToken(t), newToken(t)
	if err := WriteToken(path, old); err != nil {
		t.Fatal(err)
	}
	reader, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	before, _ := os.Lstat(path)
	if err := WriteToken(path, tok); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Lstat(path)
	if os.SameFile(before, after) {
		t.Error("the token file was rewritten in place, not replaced")
	}
	if b, _ := io.ReadAll(reader); string(b) != old.Reveal()+"\n" {
		t.Errorf("a reader of the old file saw %q", b)
	}
	got, err := ReadToken(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Reveal() != tok.Reveal() || got.Equal(old.Reveal()) {
		t.Error("ReadToken does not return the new token only")
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), old.Reveal()) {
		t.Error("the old token is still in the file")
	}
	if p := perm(t, path); p != 0o600 {
		t.Errorf("mode %04o after rewrite", p)
	}
	if tmp := tempEntries(t, dir); len(tmp) != 0 {
		t.Errorf("temp files left: %v", tmp)
	}
}

// TestWriteTokenReplacesUnsafeFile: whatever sits at the token path, a
// symlink (never followed) or a file with a loose mode, WriteToken leaves
// a fresh 0600 regular file there.
func TestWriteTokenReplacesUnsafeFile(t *testing.T) {
	tests := []struct {
		name  string
		plant func(t *testing.T, path, victim string)
	}{
		{"symlink", func(t *testing.T, path, victim string) {
			if err := os.Symlink(victim, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"dangling symlink", func(t *testing.T, path, victim string) {
			if err := os.Symlink(victim+".absent", path); err != nil {
				t.Fatal(err)
			}
		}},
		{"mode 0644", func(t *testing.T, path, _ string) { writeFile(t, path, "old\n", 0o644) }},
		{"mode 0666", func(t *testing.T, path, _ string) { writeFile(t, path, "old\n", 0o666) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "state")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			victim := filepath.Join(base, "victim.txt")
			writeFile(t, victim, "do not touch\n", 0o644)
			path := filepath.Join(dir, "internal-token")
			tt.plant(t, path, victim)
			tok := newToken(t)
			if err := WriteToken(path, tok); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(victim); string(b) != "do not touch\n" {
				t.Errorf("the symlink target was written through: %q", b)
			}
			if _, err := os.Lstat(victim + ".absent"); !errors.Is(err, fs.ErrNotExist) {
				t.Error("a dangling symlink's target was created")
			}
			if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
				t.Errorf("token file: %v, %v; want a regular file with mode 0600", fi.Mode(), err)
			}
			if got, err := ReadToken(path); err != nil || got.Reveal() != tok.Reveal() {
				t.Errorf("ReadToken after replacing: %v", err)
			}
		})
	}
}

// TestWriteTokenFailureLeavesNoTempFile: when the rename cannot happen
// (a non-empty directory sits at the path) WriteToken fails, removes its
// temp file and does not reveal the token.
func TestWriteTokenFailureLeavesNoTempFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, "internal-token")
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(path, "x"), "x", 0o600)
	tok := newToken(t)
	err := WriteToken(path, tok)
	if err == nil {
		t.Fatal("WriteToken replaced a directory")
	}
	noLeak(t, err, tok)
	if tmp := tempEntries(t, dir); len(tmp) != 0 {
		t.Errorf("temp files left: %v", tmp)
	}
}

// TestReadTokenAcceptsOwnerOnlyModes: any mode without group or other
// bits is accepted, and surrounding whitespace is ignored.
func TestReadTokenAcceptsOwnerOnlyModes(t *testing.T) {
	tok := newToken(t)
	for _, tt := range []struct {
		mode    fs.FileMode
		content string
	}{
		{0o600, tok.Reveal() + "\n"},
		{0o400, tok.Reveal()},
		{0o700, "  " + tok.Reveal() + " \r\n"},
	} {
		t.Run(fmt.Sprintf("%04o", tt.mode), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "internal-token")
			writeFile(t, path, tt.content, tt.mode)
			got, err := ReadToken(path)
			if err != nil {
				t.Fatal(err)
			}
			if got.Reveal() != tok.Reveal() {
				t.Errorf("read %q", got.Reveal())
			}
		})
	}
}

// TestReadTokenRefusesUnsafeFiles: a symlink (even to a valid token file),
// anything but a regular file, a mode with group or other bits, a file
// owned by someone else, and content that is not a token are all refused
// with an *UnsafeError that never contains the token.
func TestReadTokenRefusesUnsafeFiles(t *testing.T) {
	tok := newToken(t)
	v := tok.Reveal()
	tests := []struct {
		name  string
		plant func(t *testing.T, path string)
	}{
		{"symlink to a valid file", func(t *testing.T, path string) {
			target := filepath.Join(filepath.Dir(path), "realDir-token")
			if err := WriteToken(target, tok); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"dangling symlink", func(t *testing.T, path string) {
			if err := os.Symlink(path+".absent", path); err != nil {
				t.Fatal(err)
			}
		}},
		{"directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{"mode 0644", func(t *testing.T, path string) { writeFile(t, path, v, 0o644) }},
		{"mode 0640", func(t *testing.T, path string) { writeFile(t, path, v, 0o640) }},
		{"mode 0604", func(t *testing.T, path string) { writeFile(t, path, v, 0o604) }},
		{"mode 0620", func(t *testing.T, path string) { writeFile(t, path, v, 0o620) }},
		{"mode 0602", func(t *testing.T, path string) { writeFile(t, path, v, 0o602) }},
		{"mode 0660", func(t *testing.T, path string) { writeFile(t, path, v, 0o660) }},
		{"mode 0666", func(t *testing.T, path string) { writeFile(t, path, v, 0o666) }},
		{"another owner", func(t *testing.T, path string) {
			writeFile(t, path, v, 0o600)
			chownOrSkip(t, path)
		}},
		// Content must be exactly what WriteToken writes. All but the
		// first three were accepted before ReadToken checked the format.
		{"empty", func(t *testing.T, path string) { writeFile(t, path, "", 0o600) }},
		{"blank", func(t *testing.T, path string) { writeFile(t, path, " \n\n", 0o600) }},
		{"short", func(t *testing.T, path string) { writeFile(t, path, v[:31], 0o600) }},
		{"one character short", func(t *testing.T, path string) { writeFile(t, path, v[:63], 0o600) }},
		{"one character long", func(t *testing.T, path string) { writeFile(t, path, v+"0", 0o600) }},
		{"two tokens", func(t *testing.T, path string) { writeFile(t, path, v+"\n"+v+"\n", 0o600) }},
		{"not hex", func(t *testing.T, path string) { writeFile(t, path, strings.Repeat("z", 64), 0o600) }},
		{"upper case", func(t *testing.T, path string) { writeFile(t, path, strings.ToUpper(v), 0o600) }},
		{"inner space", func(t *testing.T, path string) { writeFile(t, path, v[:32]+" "+v[33:], 0o600) }},
		// Used to be truncated to its first 256 bytes.
		{"oversized", func(t *testing.T, path string) { writeFile(t, path, strings.Repeat(v, 5), 0o600) }},
		{"token then padding", func(t *testing.T, path string) { writeFile(t, path, v+strings.Repeat(" ", 300), 0o600) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "internal-token")
			tt.plant(t, path)
			got, err := ReadToken(path)
			wantUnsafe(t, err, path, tok)
			if !got.IsZero() {
				t.Error("a refused read returned a token")
			}
		})
	}
}

// TestReadTokenRefusesFIFO: a named pipe at the token path is refused
// before it is opened, which would block until a writer came.
func TestReadTokenRefusesFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "internal-token")
	pipes := novatest.Mkfifo(t, path)
	err := novatest.Returns(t, pipes, "ReadToken", func() error {
		_, err := ReadToken(path)
		return err
	})
	wantUnsafe(t, err, path, Token{})
}

// TestReadTokenMissing: a missing file, or a missing directory, is
// ErrMissing (which callers treat as "novad has not started"), not
// ErrUnsafe.
func TestReadTokenMissing(t *testing.T) {
	base := t.TempDir()
	for _, path := range []string{
		filepath.Join(base, "internal-token"),
		filepath.Join(base, "no-such-dir", "internal-token"),
	} {
		_, err := ReadToken(path)
		if !errors.Is(err, ErrMissing) || errors.Is(err, ErrUnsafe) {
			t.Errorf("ReadToken(%s) = %v, want ErrMissing only", path, err)
		}
		if err != nil && !strings.Contains(err.Error(), path) {
			t.Errorf("error %q does not name the path", err)
		}
	}
}
