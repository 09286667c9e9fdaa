package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/internal/racebuild"
)

// terminal is a program on a pseudo-terminal.
type terminal struct {
	*novatest.Terminal
	cmd *exec.Cmd
}

// startOnTerminal starts a Nova binary with a pseudo-terminal as its
// controlling terminal and stdin, stdout and stderr (name, or the program
// at an absolute path), as a shell in a
// terminal window (or an agent's pty-backed shell tool) runs it. answer,
// when set, is called with all the terminal showed after each read and
// may type into the terminal.
func startOnTerminal(t *testing.T, h *novatest.Home, answer func(term *novatest.Terminal, seen string), name string, args ...string) *terminal {
	t.Helper()
	term := novatest.NewTerminal(t, answer)
	bin := name
	if !filepath.IsAbs(name) {
		bin = novatest.Binary(t, name)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(h.Env(), "TERM=xterm-256color")
	slave := term.Slave() // the test's copy stays open to mark the output's end
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	novatest.Must(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return &terminal{Terminal: term, cmd: cmd}
}

// wait waits for the program to exit and returns its exit code and output.
func (term *terminal) wait(t *testing.T, timeout time.Duration) (int, string) {
	t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- term.cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(timeout):
		_ = term.cmd.Process.Kill()
		t.Fatalf("%s did not exit within %s (killed: %v); it wrote:\n%q", term.cmd.Path, timeout, <-exited, term.Seen())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, term.Output(t)
}

// bgQuery is the query for the terminal's background colour (OSC 11).
const bgQuery = "\x1b]11;?"

// TestNovactlAsksTheTerminalNothing: novactl's commands write nothing to
// the terminal but their output. Bubble Tea v1 queries the terminal's
// background colour from a package init in every program that links it:
// where nothing answers (a pseudo-terminal that an agent's shell tool, a
// git hook or "ssh -tt" opens, like this test's) every novactl command
// waited 5 s for the answer first, and left the query in the output an
// agent reads. The TUI is novactl-tui since, so novactl does not link it.
func TestNovactlAsksTheTerminalNothing(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	for _, args := range [][]string{{"version"}, {"config", "show"}} {
		term := startOnTerminal(t, h, nil, "novactl", args...)
		code, out := term.wait(t, time.Minute)
		if code != 0 {
			t.Fatalf("novactl %v exited %d:\n%s", args, code, out)
		}
		if strings.Contains(out, "\x1b") {
			t.Errorf("novactl %v wrote an escape sequence to the terminal (%q):\n%q", args, bgQuery, out)
		}
	}
}

// TestTUIFromNovactl: "novactl tui" on a terminal becomes novactl-tui,
// which draws the TUI and quits on q with exit 0. The test's terminal
// answers the queries a terminal emulator answers.
func TestTUIFromNovactl(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	var quitOnce, answerOnce sync.Once
	term := startOnTerminal(t, h, func(term *novatest.Terminal, seen string) {
		if strings.Contains(seen, bgQuery) {
			answerOnce.Do(func() {
				_ = term.Type("\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[1;1R")
			})
		}
		if strings.Contains(seen, "Search") {
			quitOnce.Do(func() { _ = term.Type("q") })
		}
	}, "novactl", "tui", "--refresh", "1s")
	code, out := term.wait(t, time.Minute)
	if code != 0 {
		t.Fatalf("novactl tui exited %d:\n%q", code, out)
	}
	for _, want := range []string{"\x1b[?1049h", "Nova", "Search", "\x1b[?1049l"} {
		if !strings.Contains(out, want) {
			t.Errorf("the TUI's drawing lacks %q:\n%q", want, out)
		}
	}
}

// TestTUIFromAnotherBuild: novactl beside a novactl-tui of another build
// (one of the two updated, not the other) does not draw another build's
// TUI: novactl-tui says that the two differ, naming both builds and the
// fix, and exits 1.
func TestTUIFromAnotherBuild(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	dir := t.TempDir()
	self, err := os.ReadFile(novatest.Binary(t, "novactl"))
	novatest.Must(t, err)
	novatest.Must(t, os.WriteFile(filepath.Join(dir, "novactl"), self, 0o755))
	_, here, _, _ := runtime.Caller(0)
	// Built as the tests' own binaries are (with -race under the race
	// detector): the build cache then holds every compiled package and
	// the stamp costs a link, where a plain build under make test
	// compiled the TUI's whole dependency tree a second time (40 s).
	args := []string{"build"}
	if racebuild.Enabled {
		args = append(args, "-race")
	}
	args = append(args, "-ldflags", "-X github.com/nova-recall/nova/internal/version.Version=v0.0.1-other",
		"-o", filepath.Join(dir, "novactl-tui"), "./cmd/novactl-tui")
	build := exec.Command("go", args...)
	build.Dir = filepath.Dir(filepath.Dir(here))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build novactl-tui: %v\n%s", err, out)
	}
	var answerOnce sync.Once
	term := startOnTerminal(t, h, func(term *novatest.Terminal, seen string) {
		if strings.Contains(seen, bgQuery) {
			answerOnce.Do(func() {
				_ = term.Type("\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[1;1R")
			})
		}
	}, filepath.Join(dir, "novactl"), "tui", "--refresh", "1s")
	code, out := term.wait(t, time.Minute)
	flat := strings.Join(strings.Fields(out), " ")
	if code != 1 || strings.Contains(out, "\x1b[?1049h") {
		t.Fatalf("novactl tui exited %d (want 1, and no TUI drawn):\n%q", code, out)
	}
	for _, want := range []string{"two builds", "novactl-tui v0.0.1-other (commit", "make build"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the output lacks %q:\n%s", want, flat)
		}
	}
}
