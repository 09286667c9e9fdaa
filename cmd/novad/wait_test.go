package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/packaging/configwait"
	"github.com/nova-recall/nova/paths"
)

// process is a novad started by startNovad.
type process struct {
	cmd  *exec.Cmd
	logs novatest.LogBuffer
	done chan struct{}
	exit int
}

func (p *process) log() string { return p.logs.String() }

// waitLog waits until novad's log contains s.
func (p *process) waitLog(t *testing.T, s string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(p.log(), s); time.Sleep(20 * time.Millisecond) {
		select {
		case <-p.done:
			t.Fatalf("novad exited %d before logging %q:\n%s", p.exit, s, p.log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("novad did not log %q:\n%s", s, p.log())
		}
	}
}

func (p *process) waitExit(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
		return p.exit
	case <-time.After(20 * time.Second):
		t.Fatalf("novad did not exit:\n%s", p.log())
	}
	return -1
}

// startNovad runs the built novad with args over home, with a private HOME
// and no NOVA_ variable but NOVA_HOME. (Not this test binary as novad, as
// TestShim does: the variable that selects its main is itself a NOVA_
// variable, which the configuration refuses.)
func startNovad(t *testing.T, home string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(novatest.Binary(t, "novad"), args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NOVA_") && !strings.HasPrefix(kv, "HOME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "HOME="+t.TempDir(), "NOVA_HOME="+home)
	p := &process{cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &p.logs, &p.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		var ee *exec.ExitError
		if err := cmd.Wait(); errors.As(err, &ee) {
			p.exit = ee.ExitCode()
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// replace writes path as editors do: a new file renamed over the old.
func replace(t *testing.T, path, content string) {
	t.Helper()
	novatest.Must(t, os.WriteFile(path+".tmp", []byte(content), 0o600))
	novatest.Must(t, os.Rename(path+".tmp", path))
}

func refused(t *testing.T, port int) {
	t.Helper()
	if c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second); err == nil {
		c.Close()
		t.Fatalf("something listens on 127.0.0.1:%d while novad waits", port)
	}
}

// TestWaitForConfig: novad started as the service definitions start it,
// over a home whose config.yaml is invalid, logs the error once, binds
// nothing and holds no novad lock while it waits, and serves as soon as
// the file is fixed by rename; SIGTERM while it waits is a clean stop.
// Without the flag it still exits 78 at once.
func TestWaitForConfig(t *testing.T) {
	newHome := func(t *testing.T) (home paths.Home, direct, facade int, valid string) {
		home = paths.Home{Root: filepath.Join(t.TempDir(), "nova")}
		novatest.Must(t, os.Mkdir(home.Root, 0o700))
		direct = novatest.ClosedPort(t)
		facade = novatest.ClosedPort(t, direct)
		valid = fmt.Sprintf("server: {host: 127.0.0.1, port: %d}\nfacade: {port: %d}\n", direct, facade)
		novatest.Must(t, os.WriteFile(home.Config(), []byte(valid+"bogus: 1\n"), 0o600))
		return home, direct, facade, valid
	}

	t.Run("serves once fixed", func(t *testing.T) {
		home, direct, facade, valid := newHome(t)
		p := startNovad(t, home.Root, "--"+configwait.Flag)
		p.waitLog(t, "bogus: unknown key")
		for deadline := time.Now().Add(10 * time.Second); !configwait.Waiting(home, configwait.JobNovad); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("novad does not show that it waits:\n%s", p.log())
			}
		}
		if lockfile.Held(home.DaemonLock()) {
			t.Fatal("a waiting novad holds state/novad.lock: clients would take it for a serving one")
		}
		refused(t, direct)
		refused(t, facade)
		for _, f := range []string{home.ServerState(), home.TokenFile()} {
			if _, err := os.Stat(f); err == nil {
				t.Errorf("a waiting novad wrote %s", f)
			}
		}

		// Saved again with the same mistake, then with another one: only
		// the new one is logged. The same mistake is the same file: moved
		// to another line it is another error (its line number), logged
		// whenever novad reads the file between the two saves.
		replace(t, home.Config(), valid+"bogus: 1\n")
		replace(t, home.Config(), valid+"other: 2\n")
		p.waitLog(t, "other: unknown key")
		if n := strings.Count(p.log(), "bogus: unknown key"); n != 1 {
			t.Fatalf("the same error was logged %d times, want once:\n%s", n, p.log())
		}

		replace(t, home.Config(), valid)
		if _, err := novatest.WaitServing(home.Root, p.cmd.Process.Pid, p.done, 30*time.Second); err != nil {
			t.Fatalf("%v:\n%s", err, p.log())
		}
		if !lockfile.Held(home.DaemonLock()) || configwait.Waiting(home, configwait.JobNovad) {
			t.Fatalf("serving novad: novad.lock held %v, still waiting %v", lockfile.Held(home.DaemonLock()), configwait.Waiting(home, configwait.JobNovad))
		}
		novatest.Must(t, p.cmd.Process.Signal(syscall.SIGTERM))
		if code := p.waitExit(t); code != 0 {
			t.Fatalf("exit %d after SIGTERM, want 0:\n%s", code, p.log())
		}
	})

	t.Run("SIGTERM while waiting", func(t *testing.T) {
		home, _, _, _ := newHome(t)
		p := startNovad(t, home.Root, "--"+configwait.Flag)
		p.waitLog(t, "bogus: unknown key")
		novatest.Must(t, p.cmd.Process.Signal(syscall.SIGTERM))
		if code := p.waitExit(t); code != 0 {
			t.Fatalf("exit %d after SIGTERM while waiting, want 0:\n%s", code, p.log())
		}
		if configwait.Waiting(home, configwait.JobNovad) {
			t.Fatal("the waiting lock outlived novad")
		}
	})

	t.Run("by hand, without the flag", func(t *testing.T) {
		home, _, _, _ := newHome(t)
		p := startNovad(t, home.Root)
		if code := p.waitExit(t); code != 78 {
			t.Fatalf("exit %d, want 78 (EX_CONFIG) at once:\n%s", code, p.log())
		}
	})
}
