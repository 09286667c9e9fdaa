package macos

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDecodePlist reads back every key RenderPlist writes.
func TestDecodePlist(t *testing.T) {
	j := Job{Label: "dev.nova.watch", Program: "/opt/nova/bin/novactl", Args: []string{"index", "watch"},
		NovaHome: `/Users/ada/a & <b> "c"`, LogDir: "/Users/ada/Library/Logs/nova", LogName: "watcher", Background: true}
	b, err := RenderPlist(j)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodePlist(b)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"Label":                  j.Label,
		"ProgramArguments":       []any{j.Program, "index", "watch"},
		"EnvironmentVariables":   map[string]any{"NOVA_HOME": j.NovaHome},
		"RunAtLoad":              true,
		"KeepAlive":              map[string]any{"SuccessfulExit": false},
		"ThrottleInterval":       uint64(10),
		"ProcessType":            "Background",
		"ExitTimeOut":            uint64(30),
		"LimitLoadToSessionType": "Aqua",
		"StandardOutPath":        j.StdoutPath(),
		"StandardErrorPath":      j.StderrPath(),
		"Umask":                  uint64(0o077),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DecodePlist(RenderPlist(j)) =\n%#v\nwant\n%#v", got, want)
	}
	for name, bad := range map[string]string{
		"binary":       "bplist00\x00\x01",
		"not XML":      "KeepAlive = true",
		"array on top": "<plist><array/></plist>",
		"dangling key": "<plist><dict><key>a</key></dict></plist>",
		"no key":       "<plist><dict><string>a</string></dict></plist>",
		"unknown":      "<plist><dict><key>a</key><set/></dict></plist>",
		"bad integer":  "<plist><dict><key>a</key><integer>x</integer></dict></plist>",
	} {
		if m, err := DecodePlist([]byte(bad)); err == nil {
			t.Errorf("%s: DecodePlist = %v, want an error", name, m)
		}
	}
}

func TestInstalledNovaHome(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dev.nova.novad.plist")
	if _, err := InstalledNovaHome(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no plist: %v, want fs.ErrNotExist", err)
	}
	home := "/Users/ada/nova home/"
	b, err := RenderPlist(Job{Label: "dev.nova.novad", Program: "/bin/novad", NovaHome: home, LogDir: "/l"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := InstalledNovaHome(path); err != nil || got != "/Users/ada/nova home" {
		t.Errorf("InstalledNovaHome = %q, %v", got, err)
	}
	// A plist without NOVA_HOME says so rather than guess a home.
	noHome := strings.Replace(string(b), "<key>NOVA_HOME</key>", "<key>OTHER</key>", 1)
	if err := os.WriteFile(path, []byte(noHome), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := InstalledNovaHome(path); err == nil || !strings.Contains(err.Error(), "NOVA_HOME") {
		t.Errorf("without NOVA_HOME: %q, %v", got, err)
	}
}

// TestInstalledCommand_args reads back the arguments RenderPlist writes, and those
// of a plist an older novactl wrote without any.
func TestInstalledCommand_args(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dev.nova.novad.plist")
	if _, err := InstalledCommand(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no plist: %v, want fs.ErrNotExist", err)
	}
	for _, args := range [][]string{{"--wait-for-config"}, {"index", "watch", "--wait-for-config"}, {`a & <b>`}, nil} {
		j := goldenJob()
		j.Args = args
		b, err := RenderPlist(j)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := InstalledCommand(path); err != nil || strings.Join(got[1:], "|") != strings.Join(args, "|") {
			t.Errorf("%q read back as %q, %v", args, got, err)
		}
	}
	if err := os.WriteFile(path, []byte("<plist><dict><key>Label</key><string>x</string></dict></plist>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := InstalledCommand(path); err == nil {
		t.Errorf("no ProgramArguments: %q, want an error", got)
	}
}
