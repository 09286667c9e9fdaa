package daemon_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/daemon"
)

// TestNew_refusesNonLoopbackHost: New refuses a configuration whose server
// host is not loopback even when it reaches New without config.Validate
// (a caller that builds its Config in code), so novad never binds one.
func TestNew_refusesNonLoopbackHost(t *testing.T) {
	for _, tc := range []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1", true}, {"localhost", true}, {"::1", true}, {"127.0.0.2", true},
		{"0.0.0.0", false}, {"::", false}, {"192.0.2.7", false}, {"::ffff:127.0.0.1", false}, {"example.com", false},
	} {
		cfg := testConfig(t, filepath.Join(t.TempDir(), "home"))
		cfg.Server.Host = tc.host
		_, err := daemon.New(daemon.Options{Config: cfg})
		switch {
		case tc.ok && err != nil:
			t.Errorf("host %q: %v", tc.host, err)
		case !tc.ok && !errors.Is(err, daemon.ErrNonLoopback):
			t.Errorf("host %q: err %v, want ErrNonLoopback", tc.host, err)
		}
	}
}

// runOnce runs srv and stops it as soon as it is ready: what Run returns
// is the refusal a test expects, or nil from a server that served.
func runOnce(srv *daemon.Server) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan struct{})
	go func() {
		select {
		case <-ready:
			cancel()
		case <-ctx.Done(): // refused before it was ready
		}
	}()
	return srv.Run(ctx, ready)
}

// TestRun_refusesAHomeBehindAnotherUsersLink: a link another user planted
// where NOVA_HOME points, to a directory of the user's, is not served:
// its owner could re-point it at their own index while novad runs.
func TestRun_refusesAHomeBehindAnotherUsersLink(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a link to another user needs root")
	}
	dir := t.TempDir()
	mine := filepath.Join(dir, "mine")
	if err := os.Mkdir(mine, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "nova")
	if err := os.Symlink(mine, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	srv, err := daemon.New(daemon.Options{Config: testConfig(t, link), BindRetry: -1})
	if err != nil {
		t.Fatal(err)
	}
	err = runOnce(srv)
	if err == nil || !strings.Contains(err.Error(), link+" is owned by another user") {
		t.Fatalf("Run in a home behind another user's link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(mine, "state", "internal-token")); err == nil {
		t.Error("a token was written behind another user's link")
	}
}

// TestRun_refusesAHardLinkedLockFile: a hard link planted at novad's lock
// file while the home was open to others, to a private file of the
// user's that another user can reach by name (~/.zsh_history sits in a
// home directory others may search), is refused before novad opens it:
// taking the lock truncated the file it names and wrote novad's record
// in its place.
func TestRun_refusesAHardLinkedLockFile(t *testing.T) {
	root := t.TempDir()
	cfg := testConfig(t, filepath.Join(root, "home"))
	if _, err := cfg.Home.Secure(); err != nil {
		t.Fatal(err)
	}
	history := filepath.Join(root, "user", ".zsh_history")
	if err := os.MkdirAll(filepath.Dir(history), 0o755); err != nil {
		t.Fatal(err)
	}
	const content = ": 1700000000:0;git push\n"
	if err := os.WriteFile(history, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(history, cfg.Home.DaemonLock()); err != nil {
		t.Fatal(err)
	}
	srv, err := daemon.New(daemon.Options{Config: cfg, BindRetry: -1})
	if err != nil {
		t.Fatal(err)
	}
	err = runOnce(srv)
	if err == nil || !strings.Contains(err.Error(), cfg.Home.DaemonLock()) {
		t.Errorf("Run with a hard link at its lock file: %v, want a refusal naming %s", err, cfg.Home.DaemonLock())
	}
	if b, err := os.ReadFile(history); err != nil || string(b) != content {
		t.Errorf("the file a hard link at the lock file names was written: %q (%v)", b, err)
	}
}

// TestRun_refusesAHomeInADirectoryOthersCanWrite: a home kept in a
// directory anyone can write, without the sticky bit /tmp has, is not
// served. Any local user could rename the home away while novad runs
// and put a home of their own, with their own index, under its name:
// novad then served their planted memory to the user's agents.
func TestRun_refusesAHomeInADirectoryOthersCanWrite(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil { // past the umask
		t.Fatal(err)
	}
	home := filepath.Join(shared, "nova")
	srv, err := daemon.New(daemon.Options{Config: testConfig(t, home), BindRetry: -1})
	if err != nil {
		t.Fatal(err)
	}
	err = runOnce(srv)
	if err == nil || !strings.Contains(err.Error(), shared+" can be written by other users") {
		t.Fatalf("Run in a home inside a directory others can write: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "state", "internal-token")); err == nil {
		t.Error("a token was written in a home others can rename")
	}

	// With the sticky bit (as /tmp has it), only the home's owner can
	// rename it: served.
	if err := os.Chmod(shared, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	srv, err = daemon.New(daemon.Options{Config: testConfig(t, home), BindRetry: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := runOnce(srv); err != nil {
		t.Fatalf("Run in a home inside a sticky directory: %v", err)
	}
}
