package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestConformance_freshnessPrecedence walks a home through the states
// novad can be in and checks that ragStatus.freshness.status is the
// first blocking one in the contract's order, that searchAvailable is
// true only where search can run, and that a search refused meanwhile
// gives the same code as its reason (conformance 12.5). Of the contract's
// ten codes Nova reaches these: "disabled" and the source profile do not
// exist in Nova, a non-loopback server is refused at start (novad exits
// 77), and with novad down there is no facade to ask.
func TestConformance_freshnessPrecedence(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	cfg := filepath.Join(h.Dir, "config.yaml")
	builtin, err := os.ReadFile(cfg)
	novatest.Must(t, err)
	d := h.Start()

	check := func(t *testing.T, d *novatest.Daemon, want string, searchable bool) {
		t.Helper()
		hm := do(t, http.MethodGet, d.Facade+api.PathFacadeHealth, "", nil).json(t)
		rs := hm["ragStatus"].(map[string]any)
		fr := rs["freshness"].(map[string]any)
		if fr["status"] != want || rs["searchAvailable"] != searchable || hm["available"] != searchable {
			t.Errorf("conformance 12.5: freshness.status %v searchAvailable %v available %v, want %s %v",
				fr["status"], rs["searchAvailable"], hm["available"], want, searchable)
		}
		sm := search(t, d.Facade, `{"query":"why was the dashboard port unavailable"}`).json(t)
		if sm["available"] != searchable || !searchable && sm["reason"] != want {
			t.Errorf("conformance 12.5: search available %v reason %v, want %v %s", sm["available"], sm["reason"], searchable, want)
		}
	}

	// 5: nothing built yet.
	t.Run("missing", func(t *testing.T) { check(t, d, api.FreshnessMissing, false) })

	// 9: the manifest names a generation that fails verification. novad
	// serves the newest intact kept one (a deliberate fallback, README
	// "Index lifecycle"): search runs, and the status says the server is
	// behind the active index.
	d.Stop()
	_, active := twoGenerations(t, h)
	damages[0].do(t, generationDir(h, active))
	d = h.Start()
	t.Run("server-index-not-ready", func(t *testing.T) { check(t, d, api.FreshnessServerIndexNotReady, true) })

	// 2 before 9: the same, with novad now configured for another
	// embedder than the one the served generation was built with.
	d.Stop()
	stub := newEmbedStub(t)
	novatest.Must(t, os.WriteFile(cfg, append(append([]byte(nil), builtin...), stubConfig(stub, "")...), 0o644))
	d = h.Start()
	t.Run("embedding-profile-mismatch", func(t *testing.T) { check(t, d, api.ReasonProfileMismatch, false) })

	// 10: rebuilt with the configured embedder.
	h.Sync()
	waitFor(t, 30*time.Second, "novad to serve the rebuilt index", func() bool {
		return directHealth(t, d).Generation == activeRunID(t, h)
	})
	t.Run("ready", func(t *testing.T) { check(t, d, "ready", true) })
}
