package macos

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/internal/golden"
	"github.com/nova-recall/nova/packaging"
)

func goldenJob() Job {
	return Job{
		Label:    "dev.nova.novad",
		Program:  "/Users/ada/bin/novad",
		Args:     packaging.NovadServiceArgs(),
		NovaHome: "/Users/ada/.nova",
		LogDir:   "/Users/ada/Library/Logs/nova",
	}
}

// escapeJob has every character XML treats specially, spaces, non-ASCII
// text and a tab, in every value the template takes.
func escapeJob() Job {
	return Job{
		Label:    "dev.nova.novad",
		Program:  "/Users/Zoë O'Brien/Apps & Tools/<nova>/novad",
		Args:     []string{"--log-format", "json", `a"b'c&d<e>f`, "tab\there"},
		NovaHome: "/Users/Zoë O'Brien/nova & <home>",
		LogDir:   "/Users/Zoë O'Brien/Library/Logs/nova",
	}
}

func TestRenderPlist(t *testing.T) {
	for _, tc := range []struct {
		name string
		job  Job
	}{
		{"default", goldenJob()},
		{"escaping", escapeJob()},
		{"watcher", Job{Label: packaging.WatchServiceName, Program: "/Users/ada/bin/novactl", Args: packaging.WatchServiceArgs(),
			NovaHome: "/Users/ada/.nova", LogDir: "/Users/ada/Library/Logs/nova", LogName: "watcher"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RenderPlist(tc.job)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", t.Name()+".golden"), got)
			again, _ := RenderPlist(tc.job)
			if !bytes.Equal(got, again) {
				t.Error("RenderPlist is not deterministic")
			}
		})
	}
}

func TestRenderPlist_WellFormed(t *testing.T) {
	for _, tc := range []struct {
		name string
		job  Job
	}{
		{"default", goldenJob()},
		{"escaping", escapeJob()},
		{"background", func() Job { j := goldenJob(); j.Background = true; return j }()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := RenderPlist(tc.job)
			if err != nil {
				t.Fatal(err)
			}
			p, err := DecodePlist(out)
			if err != nil {
				t.Fatalf("not well-formed: %v\n%s", err, out)
			}
			args := []any{tc.job.Program}
			for _, a := range tc.job.Args {
				args = append(args, a)
			}
			want := map[string]any{
				"Label":                  tc.job.Label,
				"ProgramArguments":       args,
				"EnvironmentVariables":   map[string]any{"NOVA_HOME": tc.job.NovaHome},
				"RunAtLoad":              true,
				"KeepAlive":              map[string]any{"SuccessfulExit": false},
				"ThrottleInterval":       10,
				"ProcessType":            map[bool]string{false: "Standard", true: "Background"}[tc.job.Background],
				"ExitTimeOut":            30,
				"LimitLoadToSessionType": "Aqua",
				"StandardOutPath":        filepath.Join(tc.job.LogDir, "novad.out.log"),
				"StandardErrorPath":      filepath.Join(tc.job.LogDir, "novad.err.log"),
				// 0o077: launchd creates the log files private.
				"Umask": 63,
			}
			if g, w := fmt.Sprint(p), fmt.Sprint(want); g != w {
				t.Errorf("decoded plist:\n got %s\nwant %s", g, w)
			}
		})
	}
}

func TestRenderPlist_NoSecrets(t *testing.T) {
	out, err := RenderPlist(goldenJob())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := DecodePlist(out)
	env := p["EnvironmentVariables"].(map[string]any)
	if len(env) != 1 || env["NOVA_HOME"] == nil {
		t.Errorf("EnvironmentVariables = %v, want only NOVA_HOME", env)
	}
	for _, word := range []string{"token", "secret", "key>API", "password"} {
		if strings.Contains(strings.ToLower(string(out)), strings.ToLower(word)) {
			t.Errorf("plist mentions %q", word)
		}
	}
}

func TestRenderPlist_Rejects(t *testing.T) {
	for name, mutate := range map[string]func(*Job){
		"empty label":       func(j *Job) { j.Label = "" },
		"label with slash":  func(j *Job) { j.Label = "dev/nova" },
		"relative program":  func(j *Job) { j.Program = "bin/novad" },
		"relative home":     func(j *Job) { j.NovaHome = "~/.nova" },
		"relative log dir":  func(j *Job) { j.LogDir = "logs" },
		"newline in arg":    func(j *Job) { j.Args = []string{"a\nb"} },
		"NUL in home":       func(j *Job) { j.NovaHome = "/Users/a\x00b" },
		"invalid UTF-8":     func(j *Job) { j.Program = "/Users/a/\xffnovad" },
		"control in label":  func(j *Job) { j.Label = "dev.nova\x1b" },
		"noncharacter FFFE": func(j *Job) { j.Args = []string{"\uFFFE"} },
	} {
		t.Run(name, func(t *testing.T) {
			j := goldenJob()
			mutate(&j)
			if _, err := RenderPlist(j); !errors.Is(err, ErrInvalidJob) {
				t.Errorf("RenderPlist = %v, want ErrInvalidJob", err)
			}
		})
	}
}
