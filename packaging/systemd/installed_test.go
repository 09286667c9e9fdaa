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
