package daemon

import (
	"context"
	"os"
	"path/filepath"
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
