package daemon

import (
	"bufio"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/paths"
)

// standbyHoldEnv, set to a home's root, makes this test binary a process
// that takes the home's novad lock as a novad does, says so on stdout
// and holds it until it is killed (TestStandByHelperHolds).
const standbyHoldEnv = "NOVA_DAEMON_TEST_HOLD_HOME"

// TestStandByHelperHolds is the novad killed in
// TestStandBy_takesOverFromAKilledNovad, not a test of its own.
func TestStandByHelperHolds(t *testing.T) {
	root := os.Getenv(standbyHoldEnv)
	if root == "" {
		t.Skip("only run as the helper process")
	}
	home := paths.Home{Root: root}
	novatest.Must(t, paths.MkdirPrivate(home.StateDir()))
	_, err := lockfile.Acquire(home.DaemonLock(), paths.FileMode, "serve", time.Now())
	novatest.Must(t, err)
	os.Stdout.WriteString("held\n")
	select {}
}

// standby is a novad run with WaitForHome (as the service definitions
// run it) in a goroutine, counting its tries of the home's lock.
type standby struct {
	srv   *Server
	logs  *novatest.LogBuffer
	tries atomic.Int32
	ready chan struct{}
	ended chan error
	stop  context.CancelFunc
}

// startStandby runs a novad for cfg with WaitForHome, whose safety poll
// is every, and returns once it logs line (it stands by; "": at once).
func startStandby(t *testing.T, cfg config.Config, every time.Duration, line string) *standby {
	t.Helper()
	sb := &standby{logs: &novatest.LogBuffer{}, ready: make(chan struct{}), ended: make(chan error, 1)}
	srv, err := New(Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(sb.logs, nil)), WaitForHome: true, BindRetry: -1})
	novatest.Must(t, err)
	srv.standbyEvery = every
	srv.standbyTried = func() { sb.tries.Add(1) }
	sb.srv = srv
	ctx, cancel := context.WithCancel(t.Context())
	sb.stop = cancel
	go func() { sb.ended <- srv.Run(ctx, sb.ready) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-sb.ended:
			if err != nil {
				t.Errorf("the standby's Run, stopped: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Error("the standby's Run did not return")
		}
	})
	for deadline := time.Now().Add(20 * time.Second); line != "" && !strings.Contains(sb.logs.String(), line); time.Sleep(10 * time.Millisecond) {
		select {
		case err := <-sb.ended:
			t.Fatalf("Run returned %v instead of logging %q:\n%s", err, line, sb.logs)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q:\n%s", line, sb.logs)
		}
	}
	return sb
}

// servesWithin fails the test unless the standby serves within d.
func (sb *standby) servesWithin(t *testing.T, d time.Duration, after string) {
	t.Helper()
	select {
	case <-sb.ready:
	case err := <-sb.ended:
		t.Fatalf("Run returned %v %s instead of serving:\n%s", err, after, sb.logs)
	case <-time.After(d):
		t.Fatalf("the standby does not serve within %v %s:\n%s", d, after, sb.logs)
	}
	if h := lockfile.ReadHolder(sb.srv.home.DaemonLock()); h.PID != os.Getpid() {
		t.Errorf("serving, but the lock file names %+v", h)
	}
}

// emptyHome is a configuration of a new home on ports 0.
func emptyHome(t *testing.T) config.Config {
	t.Helper()
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: t.TempDir()}
	cfg.Server.Port, cfg.Facade.Port = 0, 0
	novatest.Must(t, cfg.Validate())
	return cfg
}

// TestStandBy_idleThenTakesOver: a standby novad sleeps while the other
// novad serves: it tried the home's lock every second, for days (1 043
// syscalls per 30 s under strace, a Mac woken each second). It takes
// over within about a second of the other's stop all the same.
func TestStandBy_idleThenTakesOver(t *testing.T) {
	t.Parallel() // it waits seconds, and its home and lock are its own
	cfg := emptyHome(t)
	other := novatest.HoldNovadLock(t, cfg.Home)
	sb := startStandby(t, cfg, standbySafetyPoll, "Standing by")
	time.Sleep(3 * time.Second)
	if n := sb.tries.Load(); n > 0 {
		t.Errorf("an idle standby tried the lock %d times in 3 s, want none before the safety poll", n)
	}
	other.Release()
	sb.servesWithin(t, 1500*time.Millisecond, "after the other novad stopped")
	if n := sb.tries.Load(); n > 2 {
		t.Errorf("%d tries to take over, want one or two", n)
	}
}

// TestStandBy_takesOverFromAKilledNovad: the novad serving the home
// killed with SIGKILL (it releases nothing itself) is followed by the
// standby within about a second.
func TestStandBy_takesOverFromAKilledNovad(t *testing.T) {
	cfg := emptyHome(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestStandByHelperHolds$")
	cmd.Env = append(os.Environ(), standbyHoldEnv+"="+cfg.Home.Root)
	out, err := cmd.StdoutPipe()
	novatest.Must(t, err)
	novatest.Must(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "held\n" {
		t.Fatalf("the helper did not take the lock: %q, %v", line, err)
	}
	sb := startStandby(t, cfg, standbySafetyPoll, "Standing by")
	time.Sleep(300 * time.Millisecond)
	novatest.Must(t, cmd.Process.Kill())
	sb.servesWithin(t, 1500*time.Millisecond, "after the other novad was killed")
}

// TestStandBy_cancelled: a standby stopped (SIGTERM) returns at once, a
// clean stop; the wait it leaves blocked stands in no later novad's way
// once the other lets go.
func TestStandBy_cancelled(t *testing.T) {
	cfg := emptyHome(t)
	other := novatest.HoldNovadLock(t, cfg.Home)
	sb := startStandby(t, cfg, standbySafetyPoll, "Standing by")
	sb.stop()
	select {
	case err := <-sb.ended:
		if err != nil {
			t.Fatalf("Run of a stopped standby: %v, want a clean stop", err)
		}
	case <-time.After(time.Second):
		t.Fatal("a stopped standby did not return at once")
	}
	sb.ended <- nil // for the cleanup
	other.Release()
	next := startStandby(t, cfg, standbySafetyPoll, "")
	next.servesWithin(t, 10*time.Second, "beside the stopped standby's wait")
}

// TestStandBy_readOnlyHome: a novad for a read-only home without its lock
// file waits, and serves once the volume is writable, found by the
// safety poll (nothing can be blocked on there).
func TestStandBy_readOnlyHome(t *testing.T) {
	cfg, _ := syncedHome(t, `{"id":"port","text":"The staging deploy listens on port 42017."}`+"\n")
	_ = os.Remove(cfg.Home.DaemonLock())
	mnt := novatest.ReadOnlyMount(t, cfg.Home.Root)
	cfg.Home = paths.Home{Root: mnt}
	sb := startStandby(t, cfg, 200*time.Millisecond, "this home is read-only")
	if out, err := exec.Command("mount", "-o", "remount,bind,rw", mnt).CombinedOutput(); err != nil {
		t.Fatalf("remount writable: %v: %s", err, out)
	}
	sb.servesWithin(t, 5*time.Second, "once the home is writable")
	if n := sb.tries.Load(); n < 1 {
		t.Errorf("served after %d tries", n)
	}
}
