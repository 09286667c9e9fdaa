package macos

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/packaging"
)

// fakeLaunchctl is launchd in memory: a set of loaded targets, each with
// a running flag, and the disabled list. It records every call as the argv
// the real runner would execute.
type fakeLaunchctl struct {
	loaded   map[string]bool // target -> running
	disabled map[string]bool // label -> disabled
	calls    [][]string
	// bootstrapFailures makes the next n bootstraps fail with error 5.
	bootstrapFailures int
	// lingering makes Print still find a target this many times after bootout.
	lingering int
	linger    int
	// noGUI is launchd seen from an ssh session with no desktop login:
	// the gui/<uid> domain does not exist. printCode is what print then
	// exits with (macOS releases differ: 112 or 113), bootstrap exits 125.
	noGUI     bool
	printCode int
	// bootoutInProgress makes Bootout answer as launchctl does for a job
	// that takes a while to exit: "Boot-out failed: 36: Operation now in
	// progress", while launchd goes on stopping it.
	bootoutInProgress bool
}

func newFakeLaunchctl() *fakeLaunchctl {
	return &fakeLaunchctl{loaded: map[string]bool{}, disabled: map[string]bool{}}
}

func notFound(argv []string) error {
	return &ExitError{Argv: argv, Code: 113, Output: "Could not find service"}
}

func (f *fakeLaunchctl) Bootstrap(_ context.Context, domain, plist string) error {
	argv := BootstrapArgv(domain, plist)
	f.calls = append(f.calls, argv)
	if f.noGUI {
		return &ExitError{Argv: argv, Code: 125, Output: "Bootstrap failed: 125: Domain does not support specified action"}
	}
	if f.bootstrapFailures > 0 {
		f.bootstrapFailures--
		return &ExitError{Argv: argv, Code: 5, Output: "Bootstrap failed: 5: Input/output error"}
	}
	if _, err := os.Stat(plist); err != nil {
		return &ExitError{Argv: argv, Code: 5, Output: err.Error()}
	}
	label := strings.TrimSuffix(filepath.Base(plist), ".plist")
	if f.disabled[label] {
		return &ExitError{Argv: argv, Code: 5, Output: "Bootstrap failed: 5: Input/output error (disabled)"}
	}
	target := domain + "/" + label
	if _, ok := f.loaded[target]; ok {
		return &ExitError{Argv: argv, Code: 5, Output: "Bootstrap failed: 5: Input/output error (already loaded)"}
	}
	f.loaded[target] = true // RunAtLoad
	return nil
}

func (f *fakeLaunchctl) Bootout(_ context.Context, target string) error {
	argv := BootoutArgv(target)
	f.calls = append(f.calls, argv)
	if _, ok := f.loaded[target]; !ok {
		return &ExitError{Argv: argv, Code: 3, Output: "Boot-out failed: 3: No such process"}
	}
	delete(f.loaded, target)
	f.linger = f.lingering
	if f.bootoutInProgress {
		return &ExitError{Argv: argv, Code: 36, Output: "Boot-out failed: 36: Operation now in progress"}
	}
	return nil
}

func (f *fakeLaunchctl) Print(_ context.Context, target string) (string, error) {
	argv := PrintArgv(target)
	f.calls = append(f.calls, argv)
	if f.noGUI && f.printCode == 112 {
		return "", &ExitError{Argv: argv, Code: 112, Output: "Could not find domain for user gui: 501"}
	}
	if f.noGUI {
		return "", notFound(argv)
	}
	if f.linger > 0 {
		f.linger--
		return "state = not running", nil
	}
	running, ok := f.loaded[target]
	if !ok {
		return "", notFound(argv)
	}
	state, pid := "not running", ""
	if running {
		state, pid = "running", "\tpid = 77\n"
	}
	return fmt.Sprintf("%s = {\n\tstate = %s\n%s\tlast exit code = (never exited)\n}\n", target, state, pid), nil
}

func (f *fakeLaunchctl) Kickstart(_ context.Context, target string, kill bool) error {
	argv := KickstartArgv(target, kill)
	f.calls = append(f.calls, argv)
	if _, ok := f.loaded[target]; !ok {
		return notFound(argv)
	}
	f.loaded[target] = true
	return nil
}

func (f *fakeLaunchctl) PrintDisabled(_ context.Context, domain string) (string, error) {
	f.calls = append(f.calls, PrintDisabledArgv(domain))
	var b strings.Builder
	b.WriteString("disabled services = {\n")
	for label, d := range f.disabled {
		fmt.Fprintf(&b, "\t%q => %s\n", label, map[bool]string{true: "disabled", false: "enabled"}[d])
	}
	b.WriteString("}\n")
	return b.String(), nil
}

func (f *fakeLaunchctl) Enable(_ context.Context, target string) error {
	f.calls = append(f.calls, EnableArgv(target))
	f.disabled[filepath.Base(target)] = false
	return nil
}

func (f *fakeLaunchctl) verbs() []string {
	var out []string
	for _, c := range f.calls {
		out = append(out, c[1])
	}
	return out
}

// newTestAgent returns an Agent over a temp home that looks like a Mac's:
// Library/LaunchAgents holds someone else's agent, Library/Logs exists.
func newTestAgent(t *testing.T) (*Agent, *fakeLaunchctl) {
	t.Helper()
	home := t.TempDir()
	for _, d := range []string{"Library/LaunchAgents", "Library/Logs", ".nova/state"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(home, "Library/LaunchAgents/com.example.other.plist")
	if err := os.WriteFile(other, []byte("<plist/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFakeLaunchctl()
	a := &Agent{
		Job: Job{
			Label:    "dev.nova.novad",
			Program:  "/opt/nova/bin/novad",
			NovaHome: filepath.Join(home, ".nova"),
			LogDir:   LogDir(home),
		},
		Home:      home,
		UID:       501,
		Token:     packaging.HomeToken(filepath.Join(home, ".nova")),
		Launchctl: f,
		Sleep:     func(time.Duration) {},
		Log:       func(s string) { t.Log(s) },
	}
	return a, f
}

// tree lists every path under root with its mode, and file contents.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffTrees(before, after map[string]string) []string {
	var d []string
	for k, v := range after {
		if b, ok := before[k]; !ok {
			d = append(d, "added "+k)
		} else if b != v {
			d = append(d, "changed "+k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			d = append(d, "removed "+k)
		}
	}
	slices.Sort(d)
	return d
}

// isSubsequence reports whether every call appears in plan, in order:
// a real run executes a subset of the dry run's commands, never another.
func isSubsequence(calls, plan [][]string) bool {
	i := 0
	for _, c := range calls {
		for i < len(plan) && !slices.Equal(plan[i], c) {
			i++
		}
		if i == len(plan) {
			return false
		}
		i++
	}
	return true
}

func TestAgent_InstallIsIdempotent(t *testing.T) {
	ctx := context.Background()
	a, f := newTestAgent(t)
	before := tree(t, a.Home)
	plan, err := a.InstallPlan()
	if err != nil {
		t.Fatal(err)
	}

	if err := a.Install(ctx); err != nil {
		t.Fatal(err)
	}
	if want := []string{"print", "print-disabled", "bootstrap"}; !slices.Equal(f.verbs(), want) {
		t.Errorf("first install ran %v, want %v", f.verbs(), want)
	}
	if !isSubsequence(f.calls, plan.Commands()) {
		t.Errorf("first install ran %v, not a subsequence of the plan %v", f.calls, plan.Commands())
	}
	first := tree(t, a.Home)
	wantPlist, _ := RenderPlist(a.Job)
	plistRel := "Library/LaunchAgents/dev.nova.novad.plist"
	if got := first[plistRel]; got != "-rw-r--r-- "+string(wantPlist) {
		t.Errorf("plist is %q", got)
	}
	if got := first["Library/Logs/nova"]; got != "drwx------" {
		t.Errorf("log dir mode %q, want drwx------", got)
	}
	if d := diffTrees(before, first); !slices.Equal(d, []string{"added " + plistRel, "added Library/Logs/nova"}) {
		t.Errorf("install changed %v", d)
	}
	if !f.loaded[a.Target()] {
		t.Fatal("not running after install")
	}

	f.calls = nil
	if err := a.Install(ctx); err != nil {
		t.Fatal(err)
	}
	if want := []string{"print", "bootout", "print", "print-disabled", "bootstrap"}; !slices.Equal(f.verbs(), want) {
		t.Errorf("second install ran %v, want %v", f.verbs(), want)
	}
	if !isSubsequence(f.calls, plan.Commands()) {
		t.Errorf("second install ran %v, not a subsequence of the plan %v", f.calls, plan.Commands())
	}
	if d := diffTrees(first, tree(t, a.Home)); len(d) != 0 {
		t.Errorf("second install changed the files: %v", d)
	}
	if len(f.loaded) != 1 || !f.loaded[a.Target()] {
		t.Errorf("launchd state after second install: %v", f.loaded)
	}
}

func TestAgent_UninstallRemovesWhatInstallWrote(t *testing.T) {
	ctx := context.Background()
	a, f := newTestAgent(t)
	before := tree(t, a.Home)
	if err := a.Install(ctx); err != nil {
		t.Fatal(err)
	}
	// novad writes its token at start; uninstall removes it (J8).
	if err := os.WriteFile(a.Token.File, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.calls = nil
	if err := a.Uninstall(ctx); err != nil {
		t.Fatal(err)
	}
	if want := []string{"print", "bootout", "print"}; !slices.Equal(f.verbs(), want) {
		t.Errorf("uninstall ran %v, want %v", f.verbs(), want)
	}
	if !isSubsequence(f.calls, a.UninstallPlan().Commands()) {
		t.Errorf("uninstall ran %v, not a subsequence of its plan", f.calls)
	}
	if d := diffTrees(before, tree(t, a.Home)); len(d) != 0 {
		t.Errorf("after install+uninstall the home differs: %v", d)
	}
	if len(f.loaded) != 0 {
		t.Errorf("still loaded: %v", f.loaded)
	}

	// Again: nothing to do, no error.
	f.calls = nil
	if err := a.Uninstall(ctx); err != nil {
		t.Fatal(err)
	}
	if want := []string{"print"}; !slices.Equal(f.verbs(), want) {
		t.Errorf("second uninstall ran %v, want %v", f.verbs(), want)
	}
}

func TestAgent_UninstallKeepsLogs(t *testing.T) {
	ctx := context.Background()
	a, _ := newTestAgent(t)
	if err := a.Install(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(a.Job.StderrPath(), []byte("log"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := a.Uninstall(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a.Job.StderrPath()); err != nil {
		t.Errorf("log removed: %v", err)
	}
	if _, err := os.Stat(a.PlistPath()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("plist still there: %v", err)
	}
}

func TestAgent_InstallTightensLogDir(t *testing.T) {
	a, _ := newTestAgent(t)
	if err := os.MkdirAll(a.Job.LogDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := a.Install(context.Background()); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(a.Job.LogDir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("log dir mode %o, want 700", fi.Mode().Perm())
	}
}

func TestAgent_InstallRefusesBadJobWithoutTouchingAnything(t *testing.T) {
	a, f := newTestAgent(t)
	before := tree(t, a.Home)
	a.Job.Program = "novad"
	if err := a.Install(context.Background()); !errors.Is(err, ErrInvalidJob) {
		t.Fatalf("Install = %v, want ErrInvalidJob", err)
	}
	if len(f.calls) != 0 {
		t.Errorf("ran %v", f.calls)
	}
	if d := diffTrees(before, tree(t, a.Home)); len(d) != 0 {
		t.Errorf("changed %v", d)
	}
}

func TestAgent_InstallEnablesADisabledAgent(t *testing.T) {
	a, f := newTestAgent(t)
	f.disabled["dev.nova.novad"] = true
	if err := a.Install(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := []string{"print", "print-disabled", "enable", "bootstrap"}; !slices.Equal(f.verbs(), want) {
		t.Errorf("ran %v, want %v", f.verbs(), want)
	}
}

func TestAgent_BootstrapRetriesAfterBootout(t *testing.T) {
	a, f := newTestAgent(t)
	if err := a.Install(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.calls = nil
	f.lingering = 2
	f.bootstrapFailures = 2
	if err := a.Install(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{"print", "bootout", "print", "print", "print", "print-disabled", "bootstrap", "bootstrap", "bootstrap"}
	if !slices.Equal(f.verbs(), want) {
		t.Errorf("ran %v, want %v", f.verbs(), want)
	}

	f.calls = nil
	f.bootstrapFailures = bootstrapRetries
	err := a.Install(context.Background())
	if err == nil || !strings.Contains(err.Error(), "Login Items") {
		t.Errorf("Install after %d failures = %v, want an error with advice", bootstrapRetries, err)
	}
}

func TestAgent_Start(t *testing.T) {
	ctx := context.Background()
	a, f := newTestAgent(t)
	if err := a.Start(ctx); err == nil || !strings.Contains(err.Error(), "novactl service install") {
		t.Errorf("Start before install = %v", err)
	}
	if err := a.Install(ctx); err != nil {
		t.Fatal(err)
	}
	plan := a.StartPlan().Commands()
	for _, tc := range []struct {
		name  string
		setup func()
		want  []string
	}{
		{"running: nothing to do", func() {}, []string{"print"}},
		{"loaded, not running: kickstart", func() { f.loaded[a.Target()] = false }, []string{"print", "kickstart"}},
		{"not loaded: bootstrap", func() { delete(f.loaded, a.Target()) }, []string{"print", "bootstrap"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup()
			f.calls = nil
			if err := a.Start(ctx); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(f.verbs(), tc.want) {
				t.Errorf("ran %v, want %v", f.verbs(), tc.want)
			}
			if !isSubsequence(f.calls, plan) {
				t.Errorf("ran %v, not a subsequence of the plan", f.calls)
			}
			if !f.loaded[a.Target()] {
				t.Error("not running after Start")
			}
		})
	}
}

func TestAgent_StopKeepsThePlist(t *testing.T) {
	ctx := context.Background()
	a, f := newTestAgent(t)
	if err := a.Install(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if len(f.loaded) != 0 {
		t.Errorf("still loaded: %v", f.loaded)
	}
	if _, err := os.Stat(a.PlistPath()); err != nil {
		t.Errorf("plist gone after Stop: %v", err)
	}
	if err := a.Stop(ctx); err != nil {
		t.Errorf("second Stop = %v", err)
	}
}

func TestAgent_Status(t *testing.T) {
	ctx := context.Background()
	a, f := newTestAgent(t)
	st, err := a.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Installed || st.Loaded || st.Running() {
		t.Errorf("before install: %+v", st)
	}
	if err := a.Install(ctx); err != nil {
		t.Fatal(err)
	}
	st, _ = a.Status(ctx)
	if !st.Installed || !st.Loaded || !st.Running() || st.Print.PID != 77 {
		t.Errorf("after install: %+v", st)
	}
	f.disabled["dev.nova.novad"] = true
	f.loaded[a.Target()] = false
	st, _ = a.Status(ctx)
	if !st.Disabled || st.Running() {
		t.Errorf("disabled: %+v", st)
	}
}

func TestAgent_PlanMatchesFiles(t *testing.T) {
	a, _ := newTestAgent(t)
	plan, err := a.InstallPlan()
	if err != nil {
		t.Fatal(err)
	}
	files := plan.Files()
	if len(files) != 1 || files[0].Path != a.PlistPath() || files[0].Mode != 0o644 {
		t.Fatalf("plan files %+v", files)
	}
	if err := a.Install(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(a.PlistPath())
	if string(got) != files[0].Content {
		t.Error("the plan's plist differs from the written one")
	}
	for _, s := range plan.Steps {
		if s.Kind == packaging.StepRun && s.Argv[0] != "launchctl" {
			t.Errorf("unexpected command %v", s.Argv)
		}
	}
}

// TestAgent_WatcherSaysWhatItRuns: the watcher's agent runs novactl, so
// neither its plans nor its log lines say they start or stop novad.
func TestAgent_WatcherSaysWhatItRuns(t *testing.T) {
	ctx := context.Background()
	a, _ := newTestAgent(t)
	a.Job.Label, a.Job.Program, a.Job.Args, a.Job.LogName = "dev.nova.watch", "/opt/nova/bin/novactl", []string{"index", "watch"}, "watcher"
	a.Token = packaging.Token{} // novad's job owns the token
	var said []string
	a.Log = func(s string) { said = append(said, s) }
	plan, err := a.InstallPlan()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []packaging.Plan{plan, a.UninstallPlan(), a.StartPlan(), a.StopPlan()} {
		for _, s := range p.Steps {
			said = append(said, s.When)
		}
	}
	if err := a.Install(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.Uninstall(ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range said {
		if strings.Contains(s, "novad") {
			t.Errorf("the watcher's agent says %q", s)
		}
	}
}

func TestAgent_Restart(t *testing.T) {
	ctx := context.Background()
	a, f := newTestAgent(t)
	if err := a.Restart(ctx); err == nil || !strings.Contains(err.Error(), "novactl service install") {
		t.Errorf("Restart before install = %v", err)
	}
	if len(f.calls) != 0 {
		t.Errorf("Restart before install asked launchd %v", f.calls)
	}
	if err := a.Install(ctx); err != nil {
		t.Fatal(err)
	}
	plan := a.RestartPlan().Commands()
	for _, tc := range []struct {
		name  string
		setup func()
		want  [][]string
	}{
		{"running: kill and start again", func() {}, [][]string{PrintArgv(a.Target()), KickstartArgv(a.Target(), true)}},
		{"loaded, not running: start", func() { f.loaded[a.Target()] = false }, [][]string{PrintArgv(a.Target()), KickstartArgv(a.Target(), true)}},
		{"not loaded: bootstrap", func() { delete(f.loaded, a.Target()) }, [][]string{PrintArgv(a.Target()), BootstrapArgv(a.Domain(), a.PlistPath())}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup()
			f.calls = nil
			if err := a.Restart(ctx); err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(f.calls, tc.want, slices.Equal) {
				t.Errorf("ran %v, want %v", f.calls, tc.want)
			}
			if !isSubsequence(f.calls, plan) {
				t.Errorf("ran %v, not a subsequence of the plan %v", f.calls, plan)
			}
			if !f.loaded[a.Target()] {
				t.Error("not running after Restart")
			}
		})
	}
}

// TestAgent_BootoutInProgress: launchctl bootout of a job that does not
// exit at once answers "Boot-out failed: 36: Operation now in progress"
// and launchd goes on stopping it. That is a bootout under way, not a
// failure: install waits until launchd lets go of the job and loads the
// new plist (it used to fail with novad stopped and nothing loaded), and
// stop and uninstall finish.
func TestAgent_BootoutInProgress(t *testing.T) {
	ctx := context.Background()
	a, f := newTestAgent(t)
	if err := a.Install(ctx); err != nil {
		t.Fatal(err)
	}
	f.bootoutInProgress, f.lingering = true, 2
	if err := a.Install(ctx); err != nil {
		t.Fatalf("reinstall while the bootout is in progress: %v", err)
	}
	if !f.loaded[a.Target()] {
		t.Error("not loaded after the reinstall")
	}
	if err := a.Stop(ctx); err != nil {
		t.Errorf("stop while the bootout is in progress: %v", err)
	}
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.Uninstall(ctx); err != nil {
		t.Errorf("uninstall while the bootout is in progress: %v", err)
	}
	if _, err := os.Stat(a.PlistPath()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the plist is still there after uninstall: %v", err)
	}
}

// TestAgent_NoGUISession: over ssh with nobody logged in to the desktop,
// the gui/<uid> domain does not exist: print fails (112 or 113) and
// bootstrap answers 125, "Domain does not support specified action".
// Install, start and restart say that the LaunchAgent runs in the desktop
// session and what to do, instead of the raw launchctl error or advice
// about Login Items, which cannot help; bootstrap is not retried.
func TestAgent_NoGUISession(t *testing.T) {
	ctx := context.Background()
	for _, code := range []int{112, 113} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			a, f := newTestAgent(t)
			if err := a.Install(ctx); err != nil {
				t.Fatal(err)
			}
			f.loaded = map[string]bool{}
			f.noGUI, f.printCode = true, code
			for name, op := range map[string]func(context.Context) error{"install": a.Install, "start": a.Start, "restart": a.Restart} {
				f.calls = nil
				err := op(ctx)
				if err == nil || !errors.Is(err, ErrNoGUISession) || !strings.Contains(err.Error(), "log in to this Mac's desktop") || strings.Contains(err.Error(), "Login Items") {
					t.Errorf("%s without a GUI session: %v", name, err)
				}
				if n := slices.Index(f.verbs(), "bootstrap"); n >= 0 && slices.Contains(f.verbs()[n+1:], "bootstrap") {
					t.Errorf("%s retried the bootstrap: %v", name, f.verbs())
				}
			}
			// Nothing runs there: stop has nothing to do, and uninstall
			// removes the plist.
			if err := a.Stop(ctx); err != nil {
				t.Errorf("stop without a GUI session: %v", err)
			}
			if err := a.Uninstall(ctx); err != nil {
				t.Errorf("uninstall without a GUI session: %v", err)
			}
			if _, err := os.Stat(a.PlistPath()); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("uninstall without a GUI session left the plist: %v", err)
			}
		})
	}
}
