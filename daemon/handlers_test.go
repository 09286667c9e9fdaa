package daemon_test

import (
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/daemon"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestTruncatedFilesFailRequestNotNovad: the served generation's files
// are memory-mapped, and a request whose handler reads one truncated
// under novad (/stats counting the facets, /encode reading the builtin
// model) faults. It must fail that request with the generic 500, as a
// search does, not kill novad with a fatal error.
func TestTruncatedFilesFailRequestNotNovad(t *testing.T) {
	for _, tc := range []struct {
		name, surface, method, path string
	}{
		{"direct stats", "direct", http.MethodGet, api.PathStats},
		{"facade stats", "facade", http.MethodGet, api.PathFacadeStats},
		{"encode", "direct", http.MethodPost, api.PathEncode},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := indexedHome(t, t.TempDir())
			srv := serve(t, daemon.Options{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
			direct := "http://" + srv.DirectAddr().String()
			base := map[string]string{"direct": direct, "facade": "http://" + srv.FacadeAddr().String()}[tc.surface]
			waitServing(t, direct)
			token, err := os.ReadFile(cfg.Home.TokenFile())
			novatest.Must(t, err)
			truncateIndexFiles(t, cfg.Home.IndexDir())

			status, b := sendWithToken(t, tc.method, base+tc.path, `{"texts":["staging deploy"]}`, token)
			var e api.Error
			if status != http.StatusInternalServerError || json.Unmarshal(b, &e) != nil || e.Code != api.CodeInternal {
				t.Errorf("%s %s on truncated files: %d %.300s", tc.method, tc.path, status, b)
			}
			// Still serving, with nothing left locked by the faulted read.
			var h api.Health
			getJSON(t, direct+api.PathHealth, &h)
		})
	}
}

// truncateIndexFiles empties every mapped file under dir (segments and
// generations), as a file rewritten in place by another program is.
func truncateIndexFiles(t *testing.T, dir string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (filepath.Ext(p) != ".bin" && filepath.Ext(p) != ".lsa") {
			return err
		}
		n++
		if err := os.Chmod(p, 0o600); err != nil {
			return err
		}
		return os.Truncate(p, 0)
	})
	novatest.Must(t, err)
	if n == 0 {
		t.Fatal("no mapped index file to truncate")
	}
}

// waitServing returns once the novad whose direct server is at direct
// serves a generation.
func waitServing(t *testing.T, direct string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var h api.Health
		getJSON(t, direct+api.PathHealth, &h)
		if h.Generation != "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("novad served no generation")
		}
	}
}

// TestEncode_invalidUTF8: texts that are not UTF-8 are refused, as the
// handler means to, not embedded as the U+FFFD json.Unmarshal puts in
// their place.
func TestEncode_invalidUTF8(t *testing.T) {
	cfg := indexedHome(t, t.TempDir())
	srv := serve(t, daemon.Options{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	waitServing(t, "http://"+srv.DirectAddr().String())
	token, err := os.ReadFile(cfg.Home.TokenFile())
	novatest.Must(t, err)
	status, b := sendWithToken(t, http.MethodPost, "http://"+srv.DirectAddr().String()+api.PathEncode, "{\"texts\":[\"deploy \xff port\"]}", token)
	var e api.Error
	if status != http.StatusUnprocessableEntity || json.Unmarshal(b, &e) != nil || e.Code != api.CodeInvalidField {
		t.Errorf("/encode of a text that is not UTF-8: %d %s", status, b)
	}
}

// sendWithToken sends body as JSON with the internal token (the file's
// content) and returns the status and the response body.
func sendWithToken(t *testing.T, method, url, body string, token []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	novatest.Must(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.HeaderInternalToken, strings.TrimSpace(string(token)))
	resp, err := http.DefaultClient.Do(req)
	novatest.Must(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	novatest.Must(t, err)
	return resp.StatusCode, b
}

// TestContractProviderIsTheEmbeddingProfile (conformance 1.1): the
// contract's provider describes the embedding provider with the keys of
// the embedding profile every other response uses (mode, providerId,
// model, dimension), and equals /health's embeddingProfile. It held only
// provider, model and dimension, where provider is /health's providerId.
func TestContractProviderIsTheEmbeddingProfile(t *testing.T) {
	srv := serve(t, daemon.Options{Config: indexedHome(t, t.TempDir()), Logger: slog.New(slog.DiscardHandler)})
	direct := "http://" + srv.DirectAddr().String()
	waitServing(t, direct)
	var health struct {
		EmbeddingProfile map[string]any `json:"embeddingProfile"`
	}
	getJSON(t, direct+api.PathHealth, &health)
	var contract struct {
		Provider map[string]any `json:"provider"`
	}
	getJSON(t, "http://"+srv.FacadeAddr().String()+api.PathFacadeContract, &contract)
	for _, k := range []string{"mode", "providerId", "model", "dimension"} {
		if v, ok := contract.Provider[k]; !ok || v != health.EmbeddingProfile[k] {
			t.Errorf("contract provider[%q] = %v, want /health embeddingProfile's %v (provider %v)", k, v, health.EmbeddingProfile[k], contract.Provider)
		}
	}
}

// TestContractIsTheSameEverywhere (conformance 1.3): the contract, and
// its usagePrompt byte for byte, is the same in GET /contract and in
// every facade body that embeds it: health, stats, search, a search
// refused as invalid, and a refused mutation.
func TestContractIsTheSameEverywhere(t *testing.T) {
	srv := serve(t, daemon.Options{Config: indexedHome(t, t.TempDir()), Logger: slog.New(slog.DiscardHandler)})
	waitServing(t, "http://"+srv.DirectAddr().String())
	facade := "http://" + srv.FacadeAddr().String()
	var want json.RawMessage
	getJSON(t, facade+api.PathFacadeContract, &want)
	var c api.Contract
	novatest.Must(t, json.Unmarshal(want, &c))
	if c.UsagePrompt != api.UsagePrompt {
		t.Fatalf("GET /contract usagePrompt %q", c.UsagePrompt)
	}
	for _, tc := range []struct{ method, path, body string }{
		{http.MethodGet, api.PathFacadeHealth, ""},
		{http.MethodGet, api.PathFacadeStats, ""},
		{http.MethodPost, api.PathFacadeSearch, `{"query":"staging deploy"}`},
		{http.MethodPost, api.PathFacadeSearch, `{}`},
		{http.MethodPut, "/api/rag/external/settings", `{"server":{"host":"0.0.0.0"}}`},
		{http.MethodPost, "/api/rag/external/memory/write", `{"text":"x"}`},
	} {
		req, err := http.NewRequest(tc.method, facade+tc.path, strings.NewReader(tc.body))
		novatest.Must(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		novatest.Must(t, err)
		var body struct {
			Contract json.RawMessage `json:"externalAgentContract"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		novatest.Must(t, err)
		if string(body.Contract) != strings.TrimSpace(string(want)) {
			t.Errorf("%s %s (%d): externalAgentContract differs from GET /contract:\n got %s\nwant %s", tc.method, tc.path, resp.StatusCode, body.Contract, want)
		}
	}
}
