//go:build unix

package daemon

import (
	"os"
	"syscall"
	"testing"

	"github.com/nova-recall/nova/paths"
)

// TestMain_hangUpWhileWaitingForConfig: SIGHUP, which novad's help and
// doctor give as the way to make it reload, does not stop a novad that
// waits for a valid config.yaml: the handler was installed only once the
// configuration was loaded, and the signal's default action ended the
// process (a person who fixes config.yaml and sends SIGHUP, as for most
// daemons, killed it).
func TestMain_hangUpWhileWaitingForConfig(t *testing.T) {
	home := paths.Home{Root: t.TempDir()}
	if err := os.WriteFile(home.Config(), []byte("server: {host: 0.0.0.0, port: 0}\nfacade: {port: 0}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := startWaiting(t, home, "Waiting: the configured server host is not loopback")
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(home.Config(), []byte("server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m.servesThenStops(home, "after SIGHUP and a fixed config.yaml")
}
