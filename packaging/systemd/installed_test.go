package systemd

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstalledNovaHome reads back the NOVA_HOME RenderUnit writes, for
// homes that need every kind of escaping.
func TestInstalledNovaHome(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dev.nova.novad.service")
	if _, err := InstalledNovaHome(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no unit: %v, want fs.ErrNotExist", err)
	}
	for _, home := range []string{"/home/ada/.nova", "/home/ada/nova home", `/home/a"d\a`, "/home/100%/$HOME", "/home/a  b"} {
		u := goldenUnit()
		u.NovaHome = home
		b, err := RenderUnit(u)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := InstalledNovaHome(path); err != nil || got != home {
			t.Errorf("NOVA_HOME %q read back as %q, %v\n%s", home, got, err, b)
		}
	}
	for name, text := range map[string]string{
		"unquoted, last wins": "[Service]\nEnvironment=NOVA_HOME=/a\nEnvironment=LANG=C NOVA_HOME=/b\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := InstalledNovaHome(path); err != nil || got != "/b" {
			t.Errorf("%s: %q, %v", name, got, err)
		}
	}
	if err := os.WriteFile(path, []byte("[Service]\nExecStart=/bin/novad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := InstalledNovaHome(path); err == nil || !strings.Contains(err.Error(), "NOVA_HOME") {
		t.Errorf("without NOVA_HOME: %q, %v", got, err)
	}
}

// TestInstalledCommand_args reads back the arguments RenderUnit writes, after a
// program path that needs quoting, and those of a unit an older novactl
// wrote without any.
func TestInstalledCommand_args(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dev.nova.novad.service")
	if _, err := InstalledCommand(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no unit: %v, want fs.ErrNotExist", err)
	}
	for _, tc := range []struct {
		program string
		args    []string
	}{
		{"/home/ada/bin/novad", []string{"--wait-for-config"}},
		{"/home/ada/my apps/novactl", []string{"index", "watch", "--wait-for-config"}},
		{"/home/ada/bin/novad", nil},
	} {
		u := goldenUnit()
		u.Program, u.Args = tc.program, tc.args
		b, err := RenderUnit(u)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := InstalledCommand(path); err != nil || strings.Join(got[1:], "|") != strings.Join(tc.args, "|") {
			t.Errorf("%s %q read back as %q, %v\n%s", tc.program, tc.args, got, err, b)
		}
	}
	if err := os.WriteFile(path, []byte("[Service]\nType=simple\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := InstalledCommand(path); err == nil {
		t.Errorf("no ExecStart: %q, want an error", got)
	}
}

// TestInstalledCommand reads back the whole command line RenderUnit
// writes, for programs that need every kind of escaping: status and
// start check that exact path, so a "$" read back as "$$" made a novad
// in /home/j$smith look missing.
func TestInstalledCommand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dev.nova.novad.service")
	for _, program := range []string{"/home/ada/bin/novad", "/home/j$smith/bin/novad", "/home/100%/a b/novad", `/home/a"d\a/novad`, "/home/ada/$$/novad"} {
		u := goldenUnit()
		u.Program, u.Args = program, []string{"--wait-for-config", "a$b"}
		b, err := RenderUnit(u)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := InstalledCommand(path)
		if want := []string{program, "--wait-for-config", "a$b"}; err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%q read back as %q, %v\n%s", want, got, err, b)
		}
	}
}
