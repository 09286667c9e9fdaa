package systemd

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/internal/golden"
	"github.com/nova-recall/nova/packaging"
)

func goldenUnit() Unit {
	return Unit{
		Name:        "dev.nova.novad",
		Description: "Nova recall daemon: read-only memory for AI agents, on loopback",
		Program:     "/home/ada/bin/novad",
		Args:        packaging.NovadServiceArgs(),
		NovaHome:    "/home/ada/.nova",
	}
}

func escapeUnit() Unit {
	return Unit{
		Name:        "dev.nova.novad",
		Description: "Nova at 100% & more",
		Program:     "/home/ada/my apps/novad",
		Args:        []string{"--log-format", "json", `say "hi"`, `back\slash`, "$HOME", "50%", "a;b"},
		NovaHome:    `/home/ada/nova "home" 100% $x`,
	}
}

func TestRenderUnit(t *testing.T) {
	for _, tc := range []struct {
		name string
		unit Unit
	}{
		{"default", goldenUnit()},
		{"escaping", escapeUnit()},
		{"watcher", Unit{Name: packaging.WatchServiceName, Description: "Nova source watcher: keeps memory fresh (novactl index watch)",
			Program: "/home/ada/bin/novactl", Args: packaging.WatchServiceArgs(), NovaHome: "/home/ada/.nova"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RenderUnit(tc.unit)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", t.Name()+".golden"), got)
		})
	}
}

// TestRenderUnit_Settings checks the directives that carry decisions, so a
// golden update cannot silently drop one.
func TestRenderUnit_Settings(t *testing.T) {
	out, err := RenderUnit(goldenUnit())
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		// Waits out an invalid config.yaml: an exit 78 would not be
		// restarted (RestartPreventExitStatus), even after the fix.
		"ExecStart=/home/ada/bin/novad --wait-for-config",
		`Environment="NOVA_HOME=/home/ada/.nova"`,
		"Restart=on-failure",
		"RestartSec=10",
		"RestartPreventExitStatus=77 78",
		"TimeoutStopSec=30",
		"WantedBy=default.target",
	} {
		if !strings.Contains(string(out), "\n"+line+"\n") {
			t.Errorf("unit lacks %q", line)
		}
	}
	if n := strings.Count(string(out), "Environment="); n != 1 {
		t.Errorf("%d Environment lines, want only NOVA_HOME", n)
	}
	if strings.Contains(string(out), "multi-user.target") {
		t.Error("user units cannot want multi-user.target")
	}
}

func TestRenderUnit_Rejects(t *testing.T) {
	for name, mutate := range map[string]func(*Unit){
		"empty name":        func(u *Unit) { u.Name = "" },
		"name with slash":   func(u *Unit) { u.Name = "a/b" },
		"relative program":  func(u *Unit) { u.Program = "novad" },
		"relative home":     func(u *Unit) { u.NovaHome = "~/.nova" },
		"newline in arg":    func(u *Unit) { u.Args = []string{"a\nExecStartPre=/bin/rm"} },
		"newline in desc":   func(u *Unit) { u.Description = "x\n[Service]" },
		"template braces":   func(u *Unit) { u.NovaHome = "/home/{{x}}" },
		"invalid UTF-8":     func(u *Unit) { u.Program = "/bin/\xff" },
		"DEL in home":       func(u *Unit) { u.NovaHome = "/home/a\x7f" },
		"empty program arg": func(u *Unit) { u.Program = "" },
	} {
		t.Run(name, func(t *testing.T) {
			u := goldenUnit()
			mutate(&u)
			if _, err := RenderUnit(u); !errors.Is(err, ErrInvalidUnit) {
				t.Errorf("RenderUnit = %v, want ErrInvalidUnit", err)
			}
		})
	}
}
