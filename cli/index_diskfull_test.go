package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestIndexSync_JSONReadOnlyHomeAdvises: --json on a home on a read-only
// volume gave only the bare "read-only file system"; its error says what
// text mode says, how to index again.
func TestIndexSync_JSONReadOnlyHomeAdvises(t *testing.T) {
	_, home, env := jsonlHome(t)
	remount(t, home.Root, true)
	code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process", "--json")
	var got struct {
		OK    bool
		Error string
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != ExitFailure || got.OK {
		t.Fatalf("exit %d (%v)\n%s\n%s", code, err, out, errOut)
	}
	for _, want := range []string{"read-only file system", "make the volume writable", "set NOVA_HOME to the copy"} {
		if !strings.Contains(got.Error, want) {
			t.Errorf("the JSON error does not say %q: %q", want, got.Error)
		}
	}
	// Text mode says it once.
	_, _, errOut = runCLI(context.Background(), env, "index", "sync", "--in-process")
	if n := strings.Count(errOut, "make the volume writable"); n != 1 {
		t.Errorf("text mode gives the advice %d times, want once:\n%s", n, errOut)
	}
}

// TestIndexSync_JSONDiskFull: a sync that runs out of room says so in
// --json as a field, with what ran out and the bytes free, as a locked
// index has "busy": a script need not parse the message.
func TestIndexSync_JSONDiskFull(t *testing.T) {
	if runtime.GOOS != "linux" || os.Getuid() != 0 {
		t.Skip("a small tmpfs needs root on Linux")
	}
	root := t.TempDir()
	src := filepath.Join(root, "src")
	home := filepath.Join(root, "nova")
	for _, d := range []string{src, home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", home).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", home).Run() })
	var lines strings.Builder
	for i := range 200 {
		lines.WriteString(`{"id":"` + strings.Repeat("a", 3) + string(rune('a'+i%26)) + `","text":"the heron nests by the weir ` + strings.Repeat("and the reeds sway ", 20) + `"}` + "\n")
	}
	if err := os.WriteFile(filepath.Join(src, "r.jsonl"), []byte(lines.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := "server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\nsources:\n  - {name: r, kind: jsonl, path: " + src + "}\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	// Leave 8 KiB: too little for any index.
	var st unix.Statfs_t
	if err := unix.Statfs(home, &st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "filler"), make([]byte, int(st.Bavail*uint64(st.Bsize))-8<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + root, "NOVA_HOME=" + home}
	code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process", "--json")
	var got struct {
		OK       bool
		Error    string
		DiskFull *struct {
			Cause     string
			Home      string
			FreeBytes *uint64
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != ExitFailure || got.OK {
		t.Fatalf("exit %d (%v)\n%s\n%s", code, err, out, errOut)
	}
	d := got.DiskFull
	if d == nil || d.Cause != "no-space" || d.Home != home || d.FreeBytes == nil || *d.FreeBytes > 64<<10 {
		t.Fatalf("diskFull %+v, want cause no-space, the home and the bytes free\n%s", d, out)
	}
	// The field is documented where the command's --json is.
	if _, help, errOut := runCLI(context.Background(), env, "index", "sync", "--help"); !strings.Contains(help+errOut, `"diskFull"`) {
		t.Errorf("index sync --help does not document diskFull:\n%s%s", help, errOut)
	}
}
