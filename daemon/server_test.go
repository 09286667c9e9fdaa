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
	// Run returns at once with the refusal; one that serves is stopped.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan struct{})
	go func() {
		<-ready
		cancel()
	}()
	err = srv.Run(ctx, ready)
	if err == nil || !strings.Contains(err.Error(), link+" is owned by another user") {
		t.Fatalf("Run in a home behind another user's link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(mine, "state", "internal-token")); err == nil {
		t.Error("a token was written behind another user's link")
	}
}
