package daemon_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/daemon"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/secrets"
)

// TestTokenRepublishedAfterStateRemoved: state/ deleted while novad runs
// (a cleanup of the home) is written again within a poll: the internal
// token, the same one, in a 0600 file in a 0700 folder, and the server
// state, so that novactl can authenticate to /encode without a restart.
// Before, the token was written only at start. The token is never
// logged.
func TestTokenRepublishedAfterStateRemoved(t *testing.T) {
	cfg := indexedHome(t, t.TempDir())
	logs := &novatest.LogBuffer{}
	srv := serve(t, daemon.Options{Config: cfg, Poll: 50 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	base := "http://" + srv.DirectAddr().String()
	waitServing(t, base)
	tok, err := secrets.ReadToken(cfg.Home.TokenFile())
	novatest.Must(t, err)

	removeStateDir(t, cfg.Home)
	var again secrets.Token
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if again, err = secrets.ReadToken(cfg.Home.TokenFile()); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the token file was not published again: %v", err)
		}
	}
	if !again.Equal(tok.Reveal()) {
		t.Error("another token was published than the one novad serves")
	}
	if fi, err := os.Stat(cfg.Home.StateDir()); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("state/: %v %v, want mode 0700", fi, err)
	}
	if fi, err := os.Stat(cfg.Home.TokenFile()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v %v, want mode 0600", fi, err)
	}
	var h api.Health
	getJSON(t, base+api.PathHealth, &h)
	if !h.InternalEncodeAuthorized {
		t.Error("/health: internalEncodeAuthorized false after the token was published again")
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(cfg.Home.ServerState()); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was not written again", filepath.Base(cfg.Home.ServerState()))
		}
	}
	if strings.Contains(logs.String(), tok.Reveal()) {
		t.Error("the token is in novad's log")
	}
	if !strings.Contains(logs.String(), "published it again") {
		t.Errorf("nothing logged about the token file:\n%s", logs.String())
	}
}
