package daemon

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/packaging/configwait"
	"github.com/nova-recall/nova/paths"
)

// TestMain_waitForConfigCancelled: with --wait-for-config and a
// non-loopback config.yaml, Main waits instead of returning 77, and the
// end of its context (SIGTERM in cmd/novad) is a clean stop.
func TestMain_waitForConfigCancelled(t *testing.T) {
	t.Parallel() // it waits seconds, and its home and ports are its own
	home := paths.Home{Root: t.TempDir()}
	if err := os.WriteFile(home.Config(), []byte("server: {host: 0.0.0.0, port: 0}\nfacade: {port: 0}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout, stderr novatest.LogBuffer
	code := make(chan int, 1)
	go func() {
		code <- Main(ctx, []string{"--" + configwait.Flag}, []string{"NOVA_HOME=" + home.Root, "HOME=" + t.TempDir()}, &stdout, &stderr)
	}()
	for deadline := time.Now().Add(10 * time.Second); !configwait.Waiting(home, configwait.JobNovad); time.Sleep(10 * time.Millisecond) {
		select {
		case c := <-code:
			t.Fatalf("Main returned %d instead of waiting:\n%s", c, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("Main does not wait:\n%s", stderr.String())
		}
	}
	if !strings.Contains(stderr.String(), "rag-server-non-loopback") {
		t.Errorf("the non-loopback host is not logged:\n%s", stderr.String())
	}
	cancel()
	select {
	case c := <-code:
		if c != ExitOK {
			t.Fatalf("Main returned %d after its context ended, want %d:\n%s", c, ExitOK, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Main did not return after its context ended")
	}
	if _, err := os.Stat(filepath.Join(home.Root, "state", "novad.lock")); err == nil {
		t.Error("a waiting novad created state/novad.lock")
	}
}

// TestMain_waitForConfigStandsBy: a second novad for a home another novad
// serves (two service jobs for one NOVA_HOME: brew services and novactl
// service install) does not exit 75, which launchd answers with a relaunch
// every 10 s and a burst of log lines each time, for ever. Run as the
// service definitions run it, it logs once that it stands by, binds
// nothing, writes no token, and serves as soon as the other one stops.
func TestMain_waitForConfigStandsBy(t *testing.T) {
	t.Parallel() // it waits seconds, and its home and ports are its own
	home := paths.Home{Root: t.TempDir()}
	if err := os.WriteFile(home.Config(), []byte("server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := novatest.HoldNovadLock(t, home)
	m := startWaiting(t, home, "Standing by")
	stderr := m.stderr
	if !strings.Contains(stderr.String(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Errorf("the standby line does not name the novad that serves:\n%s", stderr.String())
	}
	for _, p := range []string{home.TokenFile(), home.ServerState()} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("a standing-by novad wrote %s", p)
		}
	}
	other.Release()
	m.servesThenStops(home, "after the other novad stopped")
}

// waitingMain is a novad's Main run as the service definitions run it
// (--wait-for-config), in a goroutine.
type waitingMain struct {
	t      *testing.T
	stderr *novatest.LogBuffer
	code   chan int
	done   chan struct{}
	cancel context.CancelFunc
}

// startWaiting runs Main for home as the service definitions do and
// returns once it logs line, failing if it exits instead; it then checks
// that line is logged once, not once per poll, however long the wait.
func startWaiting(t *testing.T, home paths.Home, line string) *waitingMain {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	m := &waitingMain{t: t, stderr: &novatest.LogBuffer{}, code: make(chan int, 1), done: make(chan struct{}), cancel: cancel}
	go func() {
		var stdout novatest.LogBuffer
		m.code <- Main(ctx, []string{"--" + configwait.Flag, "--log-format", "text"}, []string{"NOVA_HOME=" + home.Root, "HOME=" + t.TempDir()}, &stdout, m.stderr)
		close(m.done)
	}()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(m.stderr.String(), line); time.Sleep(20 * time.Millisecond) {
		select {
		case c := <-m.code:
			t.Fatalf("Main returned %d instead of logging %q:\n%s", c, line, m.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("Main does not log %q:\n%s", line, m.stderr.String())
		}
	}
	time.Sleep(3 * time.Second)
	if n := strings.Count(m.stderr.String(), line); n != 1 {
		t.Errorf("logged %q %d times:\n%s", line, n, m.stderr.String())
	}
	return m
}

// servesThenStops waits until the novad serves home with a token, then
// stops it and wants a clean exit.
func (m *waitingMain) servesThenStops(home paths.Home, when string) {
	t := m.t
	t.Helper()
	if _, err := novatest.WaitServing(home.Root, os.Getpid(), m.done, 20*time.Second); err != nil {
		t.Fatalf("%v %s:\n%s", err, when, m.stderr.String())
	}
	if _, err := os.Stat(home.TokenFile()); err != nil {
		t.Errorf("no token once serving: %v", err)
	}
	m.cancel()
	select {
	case c := <-m.code:
		if c != ExitOK {
			t.Fatalf("Main returned %d after its context ended, want %d:\n%s", c, ExitOK, m.stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Main did not return after its context ended")
	}
}

// TestMain_waitForConfigWaitsForPort: a novad run as the service
// definitions run it, whose port another program holds (another home's
// novad on the default ports, say), does not exit 75, which launchd
// answers with a relaunch every 10 s for as long as the port stays taken.
// It logs the wait once, holds neither port meanwhile (a bound port it
// does not serve would leave clients hanging) and serves once the port is
// free.
func TestMain_waitForConfigWaitsForPort(t *testing.T) {
	t.Parallel() // it waits seconds, and its home and ports are its own
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := taken.Addr().(*net.TCPAddr).Port
	home := paths.Home{Root: t.TempDir()}
	// The facade's port is the taken one, so that the direct one binds
	// first and must be let go while waiting.
	direct := novatest.ClosedPort(t)
	cfg := fmt.Sprintf("server: {host: 127.0.0.1, port: %d}\nfacade: {port: %d}\n", direct, port)
	if err := os.WriteFile(home.Config(), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	m := startWaiting(t, home, "Waiting: a port")
	stderr := m.stderr
	if !strings.Contains(stderr.String(), strconv.Itoa(port)) {
		t.Errorf("the wait does not name the taken port %d:\n%s", port, stderr.String())
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(direct)))
	if err != nil {
		t.Errorf("the direct port is held while waiting for the facade's: %v", err)
	} else {
		ln.Close()
	}
	if _, err := os.Stat(home.TokenFile()); err == nil {
		t.Error("a novad waiting for its port wrote the token")
	}
	taken.Close()
	m.servesThenStops(home, "after the port was freed")
}

// TestMain_argumentIsAUsageError: "novad ~/other-home" served the default
// home (the argument was ignored); it is refused before anything is made,
// saying the home is NOVA_HOME.
func TestMain_argumentIsAUsageError(t *testing.T) {
	userHome := t.TempDir()
	var stdout, stderr novatest.LogBuffer
	// Ports 0 and a deadline: were the argument ignored again, this
	// novad would serve the default home, not the user's default ports.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	code := Main(ctx, []string{"/srv/other-home"}, []string{"HOME=" + userHome, "NOVA_SERVER_PORT=0", "NOVA_FACADE_PORT=0"}, &stdout, &stderr)
	if code != ExitUsage || !strings.Contains(stderr.String(), `unexpected argument "/srv/other-home"`) || !strings.Contains(stderr.String(), "NOVA_HOME") {
		t.Errorf("exit %d, stderr %q; want a usage error naming NOVA_HOME", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(userHome, ".nova")); err == nil {
		t.Error("novad made ~/.nova before refusing its argument")
	}
}

// TestMain_logFileMadePrivate: under launchd novad's stderr is a file
// launchd created 0644 (Homebrew's var/log/novad.log, in a prefix other
// users may read); run as the service definitions run it (--log-file),
// novad makes it 0600 before logging anything.
func TestMain_logFileMadePrivate(t *testing.T) {
	home := paths.Home{Root: t.TempDir()}
	if err := os.WriteFile(home.Config(), []byte("server: {host: 0.0.0.0, port: 0}\nfacade: {port: 0}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "novad.log")
	stderr := novatest.ServiceLog(t, path)
	var stdout novatest.LogBuffer
	code := Main(t.Context(), []string{"--log-file", path}, []string{"NOVA_HOME=" + home.Root, "HOME=" + t.TempDir()}, &stdout, stderr)
	log, _ := os.ReadFile(path)
	if code != ExitNonLoopback || !strings.Contains(string(log), "rag-server-non-loopback") {
		t.Fatalf("Main returned %d, want %d, logging to the file:\n%s", code, ExitNonLoopback, log)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Errorf("log file mode %v, want 0600", m)
	}
}
