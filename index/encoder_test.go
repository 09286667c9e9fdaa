package index

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/secrets"
)

// TestDiscoverEncoder_onlyThisHomesNovad: the novad a state file names is
// used to embed only while a process holds this home's novad lock; after
// a novad killed with -9, another home's novad may hold its ports, and
// this home's token and memory text are not for it.
func TestDiscoverEncoder_onlyThisHomesNovad(t *testing.T) {
	profile := api.EmbeddingProfile{Provider: "openai", Model: "m", Dimension: 8}
	var asked int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked++
		_ = json.NewEncoder(w).Encode(api.Health{Status: "ok", EmbeddingProfileHash: manifest.ProfileHash(profile), ProviderLoaded: true})
	}))
	defer srv.Close()
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	home := paths.Home{Root: t.TempDir()}
	if err := paths.MkdirPrivate(home.StateDir()); err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	b, _ := json.Marshal(api.ServerState{PID: 1, Host: "127.0.0.1", DirectPort: p, FacadePort: p, TokenFile: home.TokenFile()})
	if err := os.WriteFile(home.ServerState(), b, 0o600); err != nil {
		t.Fatal(err)
	}
	tok, err := secrets.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if err := secrets.WriteToken(home.TokenFile(), tok); err != nil {
		t.Fatal(err)
	}
	enc, err := discoverEncoder(context.Background(), home, profile)
	if err != nil || enc != nil || asked != 0 {
		t.Fatalf("no novad holds the home: encoder %v, err %v, the server was asked %d times", enc, err, asked)
	}
	novatest.HoldNovadLock(t, home)
	if enc, err := discoverEncoder(context.Background(), home, profile); err != nil || enc == nil {
		t.Errorf("this home's novad: encoder %v, err %v", enc, err)
	}
}
