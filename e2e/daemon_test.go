package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/contracttest"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/manifest"
)

func TestUnavailableBeforeAnyIndex(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	d := h.Start()
	r := search(t, d.Facade, `{"query":"dashboard port","topK":3}`)
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if err := contracttest.Validate(contracttest.SearchResponse, r.body, true); err != nil {
		t.Fatalf("unavailable envelope does not match the schema: %v\n%s", err, r.body)
	}
	m := r.json(t)
	// The facade is status-gated (checklist 2.6): its reason is
	// ragStatus.freshness.status, and ragStatus comes with it.
	if m["available"] != false || m["reason"] != api.FreshnessMissing {
		t.Fatalf("want available=false reason %s, got %v %v", api.FreshnessMissing, m["available"], m["reason"])
	}
	if rs, _ := m["ragStatus"].(map[string]any); rs == nil || rs["searchAvailable"] != false || rs["freshness"].(map[string]any)["status"] != api.FreshnessMissing {
		t.Errorf("ragStatus of the unavailable facade search: %v", m["ragStatus"])
	}
	plan := m["queryPlan"].(map[string]any)
	if plan["query"] != "dashboard port" || plan["topK"] != 3.0 {
		t.Errorf("queryPlan must keep the caller's query and topK: %v", plan)
	}
	if got := m["quality"].(map[string]any)["recommendations"]; fmt.Sprint(got) != "[retry-when-rag-available]" {
		t.Errorf("recommendations = %v", got)
	}
	direct := do(t, http.MethodPost, d.Direct+api.PathSearch, `{"query":"hello","top_k":4}`, nil)
	if err := contracttest.Validate(contracttest.SearchResponse, direct.body, false); err != nil || direct.status != 200 {
		t.Fatalf("direct unavailable: %d %v %s", direct.status, err, direct.body)
	}
	if dm := direct.json(t); dm["reason"] != api.ReasonIndexNotLoaded || dm["ragStatus"] != nil {
		t.Errorf("direct unavailable (checklist 2.4): reason %v, ragStatus %v", dm["reason"], dm["ragStatus"])
	} else if wt, _ := dm["workerTelemetry"].(map[string]any); wt["workerState"] != api.WorkerFinished ||
		dm["queryPlan"].(map[string]any)["topK"] != 4.0 {
		t.Errorf("direct unavailable (checklist 2.4): workerTelemetry %v, queryPlan %v", dm["workerTelemetry"], dm["queryPlan"])
	}
	// The status-gated facade answer reports the budget too (checklist 5.3).
	if fb, _ := m["facadeBudget"].(map[string]any); fb["policy"] != "monotonic-total-budget" || fb["totalBudgetMs"] != 65000.0 {
		t.Errorf("facade unavailable answer without facadeBudget: %v", m["facadeBudget"])
	}
	hl := do(t, http.MethodGet, d.Facade+api.PathFacadeHealth, "", nil)
	if err := contracttest.Validate(contracttest.FacadeHealth, hl.body, false); err != nil {
		t.Fatalf("facade health: %v", err)
	}
	if hl.json(t)["available"] != false {
		t.Errorf("health says available before any index: %s", hl.body)
	}
	var health api.Health
	novatest.Must(t, json.Unmarshal(do(t, http.MethodGet, d.Direct+api.PathHealth, "", nil).body, &health))
	if health.IndexExists || health.IndexLoaded || health.IndexUnavailableReason != api.ReasonIndexNotLoaded {
		t.Errorf("health before any index: exists %v loaded %v reason %q", health.IndexExists, health.IndexLoaded, health.IndexUnavailableReason)
	}
}

func TestEndpointShapesAndSearch(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	h.Sync()
	d := h.Start()

	health := do(t, http.MethodGet, d.Direct+api.PathHealth, "", nil)
	var hl api.Health
	novatest.Must(t, json.Unmarshal(health.body, &hl))
	if health.status != 200 || !hl.IndexExists || !hl.IndexLoaded || hl.Entries == 0 || hl.Generation == "" || !hl.InternalEncodeAuthorized {
		t.Fatalf("health: %s", health.body)
	}
	stats := do(t, http.MethodGet, d.Direct+api.PathStats, "", nil)
	var st api.Stats
	novatest.Must(t, json.Unmarshal(stats.body, &st))
	if !st.API.ReadOnly || st.API.MutationAllowed || st.Index.Entries != hl.Entries || st.API.Endpoints["search"] != "POST /search" {
		t.Fatalf("stats: %s", stats.body)
	}
	if strings.Contains(string(stats.body), "/encode") {
		t.Error("/encode must not be advertised in /stats")
	}
	// The keys of conformance 1.17 and 1.18, with the embedding profile in
	// the contract's shape {mode, providerId, model, dimension}.
	hj, sj := health.json(t), stats.json(t)
	for _, k := range []string{"status", "sourceCommit", "model", "dimension", "provider", "providerId", "embeddingProfile", "embeddingProfileHash",
		"providerLoaded", "internalEncodeAuthorized", "indexPath", "indexSource", "indexReady", "indexUnavailableReason", "indexExists", "indexLoaded", "entries"} {
		if _, ok := hj[k]; !ok {
			t.Errorf("/health has no %q: %s", k, health.body)
		}
	}
	server, _ := sj["server"].(map[string]any)
	for _, k := range []string{"title", "model", "dimension", "provider", "providerId", "embeddingProfile", "embeddingProfileHash", "providerLoaded"} {
		if _, ok := server[k]; !ok {
			t.Errorf("/stats server has no %q: %s", k, stats.body)
		}
	}
	for _, prof := range []any{hj["embeddingProfile"], server["embeddingProfile"]} {
		p, _ := prof.(map[string]any)
		if p["mode"] != "local" || p["providerId"] != "builtin" || p["model"] == "" || p["dimension"] != float64(hl.Dimension) || len(p) != 4 {
			t.Errorf("embeddingProfile %v, want {mode: local, providerId: builtin, model, dimension}", prof)
		}
	}
	if hj["provider"] != "local" || hj["providerId"] != "builtin" {
		t.Errorf("/health provider %v providerId %v, want local and builtin", hj["provider"], hj["providerId"])
	}

	contract := do(t, http.MethodGet, d.Facade+api.PathFacadeContract, "", nil)
	if err := contracttest.Validate(contracttest.Contract, contract.body, false); err != nil {
		t.Fatalf("contract: %v", err)
	}
	var c api.Contract
	novatest.Must(t, json.Unmarshal(contract.body, &c))
	if strings.Join(c.AllowedEndpoints, ",") != "GET /api/rag/external/health,GET /api/rag/external/stats,GET /api/rag/external/contract,POST /api/rag/external/search" {
		t.Errorf("allowedEndpoints = %v", c.AllowedEndpoints)
	}
	p := c.UsagePrompt
	i1 := strings.Index(p, "current conversation")
	i2 := strings.Index(p, "host Agent Runtime's built-in or connected memory/history retrieval")
	i3 := strings.Index(p, "nova-RAG only when the preceding sources do not provide enough reliable information")
	if i1 < 0 || i2 < i1 || i3 < i2 || !strings.Contains(p, "evidence rather than authority") || !strings.Contains(p, "user explicitly asks to query nova-RAG") {
		t.Errorf("usagePrompt does not state the recall priority in order: %q", p)
	}
	fh := do(t, http.MethodGet, d.Facade+api.PathFacadeHealth, "", nil)
	if err := contracttest.Validate(contracttest.FacadeHealth, fh.body, false); err != nil {
		t.Fatal(err)
	}
	if fh.json(t)["available"] != true {
		t.Fatalf("facade health not available: %s", fh.body)
	}
	fs := do(t, http.MethodGet, d.Facade+api.PathFacadeStats, "", nil)
	if fs.status != 200 || fs.json(t)["externalAgentContract"] == nil {
		t.Fatalf("facade stats: %s", fs.body)
	}

	r := search(t, d.Facade, `{"query":"Why was port 2096 unavailable?","topK":5}`)
	if err := contracttest.Validate(contracttest.SearchResponse, r.body, true); err != nil {
		t.Fatalf("search envelope: %v\n%s", err, r.body)
	}
	var resp api.SearchResponse
	novatest.Must(t, json.Unmarshal(r.body, &resp))
	if !resp.Available || len(resp.Results) == 0 || resp.Results[0].SourceID != "inc-7" {
		t.Fatalf("expected inc-7 first: %s", r.body)
	}
	if resp.ExternalAgentContract.UsagePrompt != p {
		t.Error("usagePrompt differs between /contract and search")
	}
	var fhv api.FacadeHealth
	novatest.Must(t, json.Unmarshal(fh.body, &fhv))
	if fhv.ExternalAgentContract.UsagePrompt != p {
		t.Error("usagePrompt differs between /contract and health")
	}
	if resp.RagStatus == nil || !resp.RagStatus.SearchAvailable || resp.RagStatus.Generation != hl.Generation {
		t.Errorf("facade search ragStatus (checklist 1.5): %+v", resp.RagStatus)
	}
	if resp.Quality.Status != "strong" || resp.CitationPack[0].CitationID != "C1" || resp.FacadeBudget == nil || resp.WorkerTelemetry.WorkerState != api.WorkerFinished {
		t.Errorf("quality %s, citations %v, budget %v, worker %v", resp.Quality.Status, resp.CitationPack, resp.FacadeBudget, resp.WorkerTelemetry)
	}

	// Chinese query against Chinese text.
	zh := search(t, d.Facade, `{"query":"迁移后定时任务为什么失败"}`)
	novatest.Must(t, json.Unmarshal(zh.body, &resp))
	if len(resp.Results) == 0 || resp.Results[0].SourceID != "zh-1" {
		t.Errorf("Chinese query: %s", zh.body)
	}

	// Filters are hard filters.
	f := search(t, d.Facade, `{"query":"migration rollback","project":"nova"}`)
	novatest.Must(t, json.Unmarshal(f.body, &resp))
	for _, res := range resp.Results {
		if res.Project == nil || *res.Project != "nova" {
			t.Errorf("project filter leaked %v", res.Project)
		}
	}

	for _, tc := range []struct {
		name, surface, body string
		status              int
		reason              string
	}{
		{"missing query", "facade", `{}`, 400, api.ReasonQueryRequired},
		{"blank query", "facade", `{"query":"   "}`, 400, api.ReasonQueryRequired},
		{"not an object", "facade", `[1,2]`, 400, api.ReasonInvalidRequest},
		{"bad json", "facade", `{"query":`, 400, api.ReasonInvalidRequest},
		{"duplicate key", "facade", `{"query":"a","query":"b"}`, 400, api.ReasonInvalidRequest},
		{"trailing data", "facade", `{"query":"a"}garbage`, 400, api.ReasonInvalidRequest},
		{"non-numeric budget", "facade", `{"query":"a","remainingBudgetMs":"soon"}`, 400, "invalid-field:remainingBudgetMs"},
		{"bad date", "facade", `{"query":"a","date":"yesterday"}`, 422, "invalid-field:date"},
		{"direct topK too big", "direct", `{"query":"a","top_k":21}`, 422, "invalid-field:topK"},
		{"direct topK zero", "direct", `{"query":"a","top_k":0}`, 422, "invalid-field:topK"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := d.Facade + api.PathFacadeSearch
			if tc.surface == "direct" {
				url = d.Direct + api.PathSearch
			}
			r := do(t, http.MethodPost, url, tc.body, nil)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %.300s", r.status, tc.status, r.body)
			}
			if err := contracttest.Validate(contracttest.SearchResponse, r.body, tc.surface == "facade"); err != nil {
				t.Fatalf("error responses are full envelopes too: %v\n%s", err, r.body)
			}
			if got := r.json(t)["reason"]; got != tc.reason {
				t.Errorf("reason %v, want %s", got, tc.reason)
			}
		})
	}

	// The facade clamps topK; the direct server accepts the bounds.
	r = search(t, d.Facade, `{"query":"release","topK":25}`)
	if r.json(t)["topK"] != 20.0 {
		t.Errorf("facade topK 25 not clamped to 20: %v", r.json(t)["topK"])
	}
	r = search(t, d.Facade, `{"query":"release","top_k":-3}`)
	if r.json(t)["topK"] != 1.0 {
		t.Errorf("facade topK -3 not clamped to 1: %v", r.json(t)["topK"])
	}
	// A remaining budget below 200 ms is refused without searching.
	r = search(t, d.Facade, `{"query":"release","remainingBudgetMs":150}`)
	m := r.json(t)
	if r.status != 200 || m["reason"] != api.ReasonBudgetExhausted || m["facadeBudget"].(map[string]any)["remainingBudgetMs"] != 150.0 {
		t.Errorf("budget exhaustion: %s", r.body)
	}
	r = search(t, d.Facade, `{"query":"release","remainingBudgetMs":5000}`)
	m = r.json(t)
	if fb := m["facadeBudget"].(map[string]any); fb["totalBudgetMs"] != 5000.0 || fb["serverBudgetCapMs"] != 60000.0 || m["available"] != true {
		t.Errorf("facade budget: %v", m["facadeBudget"])
	}
}

func TestHotReloadAndCorruptGeneration(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	h.Sync()
	d := h.Start()
	first := search(t, d.Facade, `{"query":"zebra crossing incident"}`)
	var resp api.SearchResponse
	novatest.Must(t, json.Unmarshal(first.body, &resp))
	oldGen := resp.Generation
	for _, r := range resp.Results {
		if strings.Contains(r.TextPreview, "zebra") {
			t.Fatal("fixture already mentions zebra")
		}
	}

	// Promote a new generation while novad runs: it must be served
	// without a restart.
	f, err := os.OpenFile(filepath.Join(h.Data, "records.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	novatest.Must(t, err)
	fmt.Fprintln(f, `{"id":"new-1","text":"A zebra crossing incident blocked the deploy pipeline for an hour.","date":"2026-11-29","agent":"codex","project":"nova"}`)
	novatest.Must(t, f.Close())
	h.Sync()
	waitFor(t, 15*time.Second, "the new generation to be served", func() bool {
		r := search(t, d.Facade, `{"query":"zebra crossing incident"}`)
		novatest.Must(t, json.Unmarshal(r.body, &resp))
		return len(resp.Results) > 0 && resp.Results[0].SourceID == "new-1"
	})
	good := resp.Generation
	if good == oldGen {
		t.Fatal("generation did not change")
	}

	// A corrupt generation is refused and the previous one keeps serving.
	m, _, err := manifest.Read(filepath.Join(h.Dir, "index", "manifest.json"))
	novatest.Must(t, err)
	badID := manifest.NewRunID(time.Now().Add(time.Hour))
	src := filepath.Join(h.Dir, "index", m.GenerationPath)
	dst := filepath.Join(h.Dir, "index", "generations", badID)
	novatest.Must(t, os.MkdirAll(dst, 0o755))
	entries, err := os.ReadDir(src)
	novatest.Must(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		novatest.Must(t, err)
		if e.Name() == "sources.json" {
			b[len(b)/2] ^= 0x20 // one flipped bit
		}
		novatest.Must(t, os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644))
	}
	bad := *m
	bad.RunID, bad.GenerationPath = badID, "generations/"+badID
	novatest.Must(t, manifest.WriteAtomic(filepath.Join(h.Dir, "index", "manifest.json"), &bad, nil))
	waitFor(t, 15*time.Second, "the failed reload to be reported", func() bool {
		var hl api.Health
		novatest.Must(t, json.Unmarshal(do(t, http.MethodGet, d.Direct+api.PathHealth, "", nil).body, &hl))
		return !hl.Reload.LastReloadSuccessful && hl.Reload.FailedRunID == badID
	})
	r := search(t, d.Facade, `{"query":"zebra crossing incident"}`)
	novatest.Must(t, json.Unmarshal(r.body, &resp))
	if !resp.Available || resp.Generation != good {
		t.Fatalf("after a corrupt promote the previous generation must keep serving: %s", r.body)
	}
	// The log line follows the failure /health reports.
	waitFor(t, 15*time.Second, "the failed load to be logged", func() bool {
		return strings.Contains(d.Logs.String(), "Generation not loaded")
	})
	// SIGHUP also reloads; restoring the good manifest clears the failure.
	novatest.Must(t, manifest.WriteAtomic(filepath.Join(h.Dir, "index", "manifest.json"), m, nil))
	novatest.Must(t, d.Cmd.Process.Signal(os.Signal(syscallHUP)))
	waitFor(t, 15*time.Second, "the failure to clear", func() bool {
		var hl api.Health
		novatest.Must(t, json.Unmarshal(do(t, http.MethodGet, d.Direct+api.PathHealth, "", nil).body, &hl))
		return hl.Reload.LastReloadSuccessful && hl.Generation == good
	})
}

func TestMutationsAreRefusedAndTouchNothing(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	h.Sync()
	d := h.Start()
	before := snapshot(t, h.Dir)
	for _, route := range api.FacadeMutationPaths {
		method, path, _ := strings.Cut(route, " ")
		r := do(t, method, d.Facade+path, `{"query":"x","text":"remember this","settings":{"server":{"host":"0.0.0.0"}}}`, nil)
		m := r.json(t)
		if r.status != 403 || m["error"] != api.CodeReadOnly || m["externalAgentContract"] == nil {
			t.Errorf("%s: %d %s", route, r.status, r.body)
		}
		if err := contracttest.Validate(contracttest.Error, r.body, false); err != nil {
			t.Errorf("%s: %v", route, err)
		}
	}
	for _, route := range api.DirectMutationPaths {
		method, path, _ := strings.Cut(route, " ")
		r := do(t, method, d.Direct+path, `{"texts":["x"]}`, nil)
		if r.status != 403 || r.json(t)["error"] != api.CodeReadOnly {
			t.Errorf("%s: %d %s", route, r.status, r.body)
		}
	}
	// Any writing method anywhere is refused; unknown paths are 404;
	// a wrong method on a known path is 405.
	for _, tc := range []struct {
		method, url string
		status      int
	}{
		{http.MethodDelete, d.Facade + "/api/rag/external/memory/write", 403},
		{http.MethodPut, d.Direct + api.PathSearch, 403},
		{http.MethodPatch, d.Facade + api.PathFacadeSearch, 403},
		{http.MethodOptions, d.Facade + api.PathFacadeSearch, 403},
		{http.MethodGet, d.Facade + "/api/rag/external/settings", 405},
		{http.MethodPost, d.Facade + "/api/rag/external/promote", 404},
		{http.MethodGet, d.Direct + "/nope", 404},
		{http.MethodGet, d.Direct + api.PathSearch, 405},
		// Paths the mux would clean name no route: JSON answers, never
		// its text/html redirect.
		{http.MethodGet, d.Facade + "/api/rag/external/./health", 404},
		{http.MethodPost, d.Direct + "//encode", 404},
		{http.MethodGet, d.Direct + "/x/.." + api.PathHealth, 404},
		{http.MethodDelete, d.Direct + "/" + api.PathSearch, 403},
	} {
		r := do(t, tc.method, tc.url, "", nil)
		if r.status != tc.status || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Errorf("%s %s: %d %s, want %d: %s", tc.method, tc.url, r.status, r.header.Get("Content-Type"), tc.status, r.body)
		}
		if err := contracttest.Validate(contracttest.Error, r.body, false); err != nil {
			t.Errorf("%s %s: %v", tc.method, tc.url, err)
		}
	}
	after := snapshot(t, h.Dir)
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("refused mutations changed files under the home:\nbefore %v\nafter  %v", before, after)
	}
}

func TestBrowserRebindingAndProxyRefusals(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	h.Sync()
	d := h.Start()
	port := strings.TrimPrefix(d.Facade, "http://127.0.0.1:")
	ok := `{"query":"release"}`
	for _, tc := range []struct {
		name    string
		headers map[string]string
		status  int
		code    string
	}{
		{"localhost host", map[string]string{"Host": "localhost:" + port}, 200, ""},
		{"upper-case localhost", map[string]string{"Host": "LOCALHOST:" + port}, 200, ""},
		// [::1] names a listener on ::1, not this one on 127.0.0.1 (reliability C4).
		{"ipv6 loopback host on an IPv4 listener", map[string]string{"Host": "[::1]:" + port}, 403, api.CodeHostNotAllowed},
		{"charset utf-8", map[string]string{"Content-Type": "application/json; charset=utf-8"}, 200, ""},
		{"rebinding host", map[string]string{"Host": "evil.example:" + port}, 403, api.CodeHostNotAllowed},
		{"suffix trick", map[string]string{"Host": "localhost.evil.com:" + port}, 403, api.CodeHostNotAllowed},
		{"trailing dot", map[string]string{"Host": "localhost.:" + port}, 403, api.CodeHostNotAllowed},
		{"subdomain of localhost", map[string]string{"Host": "foo.localhost:" + port}, 403, api.CodeHostNotAllowed},
		{"zero address", map[string]string{"Host": "0.0.0.0:" + port}, 403, api.CodeHostNotAllowed},
		{"lan address", map[string]string{"Host": "192.168.1.10:" + port}, 403, api.CodeHostNotAllowed},
		{"other port", map[string]string{"Host": "127.0.0.1:1"}, 403, api.CodeHostNotAllowed},
		{"no port", map[string]string{"Host": "127.0.0.1"}, 403, api.CodeHostNotAllowed},
		{"origin", map[string]string{"Origin": "https://evil.example"}, 403, api.CodeBrowserRefused},
		{"origin null", map[string]string{"Origin": "null"}, 403, api.CodeBrowserRefused},
		{"same-origin fetch", map[string]string{"Sec-Fetch-Site": "same-origin"}, 403, api.CodeBrowserRefused},
		{"address bar", map[string]string{"Sec-Fetch-Site": "none"}, 403, api.CodeBrowserRefused},
		{"referer", map[string]string{"Referer": "https://evil.example/page"}, 403, api.CodeBrowserRefused},
		{"preflight header", map[string]string{"Access-Control-Request-Method": "POST"}, 403, api.CodeBrowserRefused},
		{"websocket", map[string]string{"Upgrade": "websocket", "Connection": "Upgrade"}, 403, api.CodeBrowserRefused},
		{"forwarded", map[string]string{"X-Forwarded-For": "203.0.113.9"}, 403, api.CodeProxyRefused},
		{"rfc forwarded", map[string]string{"Forwarded": "for=203.0.113.9"}, 403, api.CodeProxyRefused},
		{"via", map[string]string{"Via": "1.1 tunnel"}, 403, api.CodeProxyRefused},
		{"tailscale", map[string]string{"Tailscale-User-Login": "a@b"}, 403, api.CodeProxyRefused},
		{"text/plain", map[string]string{"Content-Type": "text/plain"}, 415, ""},
		{"form", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, ""},
		{"json-seq", map[string]string{"Content-Type": "application/json-seq"}, 415, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, http.MethodPost, d.Facade+api.PathFacadeSearch, ok, tc.headers)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %.300s", r.status, tc.status, r.body)
			}
			if tc.code != "" && r.json(t)["error"] != tc.code {
				t.Errorf("error %v, want %s", r.json(t)["error"], tc.code)
			}
			for _, hdr := range []string{"X-Content-Type-Options", "Content-Security-Policy", "Cache-Control"} {
				if r.header.Get(hdr) == "" {
					t.Errorf("missing %s", hdr)
				}
			}
		})
	}
	big := `{"query":"` + strings.Repeat("a", 70<<10) + `"}`
	if r := search(t, d.Facade, big); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("70 KiB body: %d", r.status)
	}
	if r := do(t, http.MethodGet, d.Facade+api.PathFacadeHealth+"?token=abc", "", nil); r.status != 400 {
		t.Errorf("token in URL: %d", r.status)
	}
	// Raw requests a client library would not send.
	raw := func(req string) string {
		conn, err := net.Dial("tcp", strings.TrimPrefix(d.Facade, "http://"))
		novatest.Must(t, err)
		defer conn.Close()
		novatest.Must(t, conn.SetDeadline(time.Now().Add(5*time.Second)))
		fmt.Fprint(conn, req)
		line, _ := bufio.NewReader(conn).ReadString('\n')
		return line
	}
	if got := raw("GET http://evil.example/api/rag/external/health HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n"); !strings.Contains(got, " 403 ") {
		t.Errorf("absolute-form request to another host: %q", got)
	}
	if got := raw("GET /api/rag/external/health HTTP/1.0\r\n\r\n"); !strings.Contains(got, " 403 ") {
		t.Errorf("HTTP/1.0 without Host: %q", got)
	}
	if got := raw("GET /api/rag/external/health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"); !strings.Contains(got, " 400 ") {
		t.Errorf("two Host headers: %q", got)
	}
	// net/http answers "OPTIONS *" itself, 200, before any handler: it
	// must pass the same checks as every other request.
	if got := raw("OPTIONS * HTTP/1.1\r\nHost: evil.example:" + port + "\r\nOrigin: https://evil.example\r\n\r\n"); !strings.Contains(got, " 403 ") {
		t.Errorf("OPTIONS * with a rebinding Host: %q", got)
	}
	if got := raw("OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n"); !strings.Contains(got, " 403 ") {
		t.Errorf("OPTIONS * with a valid Host: %q", got)
	}
}

func TestInternalTokenLifecycle(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	h.Sync()
	tokenPath := filepath.Join(h.Dir, "state", "internal-token")
	// A symlink planted at the token path is replaced, never followed.
	novatest.Must(t, os.MkdirAll(filepath.Dir(tokenPath), 0o700))
	target := filepath.Join(h.Dir, "victim.txt")
	novatest.Must(t, os.WriteFile(target, []byte("do not touch\n"), 0o644))
	novatest.Must(t, os.Symlink(target, tokenPath))
	d := h.Start()
	if b, _ := os.ReadFile(target); string(b) != "do not touch\n" {
		t.Fatal("the symlink target was written through")
	}
	fi, err := os.Lstat(tokenPath)
	novatest.Must(t, err)
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v", fi.Mode())
	}
	di, err := os.Stat(filepath.Dir(tokenPath))
	novatest.Must(t, err)
	if di.Mode().Perm() != 0o700 {
		t.Errorf("state dir mode %v", di.Mode().Perm())
	}
	tok1 := readToken(t, tokenPath)
	var bodies []string
	encode := func(token string) reply {
		r := do(t, http.MethodPost, d.Direct+api.PathEncode, `{"texts":["dashboard port","rollback"]}`, map[string]string{api.HeaderInternalToken: token})
		bodies = append(bodies, string(r.body))
		return r
	}
	if r := encode(""); r.status != 403 || r.json(t)["error"] != api.CodeAuthRequired {
		t.Errorf("no token: %d %s", r.status, r.body)
	}
	if r := encode(strings.Repeat("0", len(tok1))); r.status != 403 || r.json(t)["error"] != api.CodeAuthRequired {
		t.Errorf("wrong token: %d %s", r.status, r.body)
	}
	r := encode(tok1)
	var vecs [][]float32
	if r.status != 200 || json.Unmarshal(r.body, &vecs) != nil || len(vecs) != 2 || len(vecs[0]) != 384 {
		t.Fatalf("encode with the token: %d %.200s", r.status, r.body)
	}
	// Path variants never reach the encoder without the token.
	for _, p := range []string{"/encode/", "//encode", "/ENCODE", "/%65ncode", "/encode?x=1"} {
		r := do(t, http.MethodPost, d.Direct+p, `{"texts":["a"]}`, nil)
		if r.status == 200 {
			t.Errorf("%s reached the encoder without a token", p)
		}
	}
	for _, path := range []string{api.PathHealth, api.PathStats} {
		bodies = append(bodies, string(do(t, http.MethodGet, d.Direct+path, "", nil).body))
	}
	for _, path := range []string{api.PathFacadeHealth, api.PathFacadeStats, api.PathFacadeContract} {
		bodies = append(bodies, string(do(t, http.MethodGet, d.Facade+path, "", nil).body))
	}
	bodies = append(bodies, string(search(t, d.Facade, `{"query":"token"}`).body))
	// An unsafe token file disables /encode even with the right header.
	novatest.Must(t, os.Chmod(tokenPath, 0o644))
	if r := encode(tok1); r.status != 403 || r.json(t)["error"] != api.CodeAuthUnavailable {
		t.Errorf("unsafe token file: %d %s", r.status, r.body)
	}
	var hl api.Health
	novatest.Must(t, json.Unmarshal(do(t, http.MethodGet, d.Direct+api.PathHealth, "", nil).body, &hl))
	if hl.InternalEncodeAuthorized {
		t.Error("health says encode is authorized with an unsafe token file")
	}
	// A safe file holding another token (what a second novad once wrote)
	// leaves clients nothing that works: health says so as /encode does.
	novatest.Must(t, os.Remove(tokenPath))
	novatest.Must(t, os.WriteFile(tokenPath, []byte(strings.Repeat("7", len(tok1))+"\n"), 0o600))
	if r := encode(tok1); r.status != 403 || r.json(t)["error"] != api.CodeAuthUnavailable {
		t.Errorf("token file of another token: %d %s", r.status, r.body)
	}
	hl = api.Health{}
	novatest.Must(t, json.Unmarshal(do(t, http.MethodGet, d.Direct+api.PathHealth, "", nil).body, &hl))
	if hl.InternalEncodeAuthorized {
		t.Error("health says encode is authorized while the token file holds another token")
	}
	// The file holds the live token again at stop, so a novad that kept a
	// readable token instead of drawing a new one would be caught below.
	novatest.Must(t, os.Remove(tokenPath))
	novatest.Must(t, os.WriteFile(tokenPath, []byte(tok1+"\n"), 0o600))
	if r := encode(tok1); r.status != 200 {
		t.Fatalf("token file restored: %d %s", r.status, r.body)
	}
	code, _ := d.Stop()
	if code != 0 {
		t.Errorf("clean stop exit code %d", code)
	}
	// Rotation on restart: the old token stops working.
	d2 := h.Start()
	tok2 := readToken(t, tokenPath)
	if tok2 == tok1 {
		t.Fatal("token not rotated on restart")
	}
	r = do(t, http.MethodPost, d2.Direct+api.PathEncode, `{"texts":["a"]}`, map[string]string{api.HeaderInternalToken: tok1})
	if r.status != 403 {
		t.Errorf("previous token still accepted: %d", r.status)
	}
	d2.Stop()
	state, _ := os.ReadFile(filepath.Join(h.Dir, "state", "server-state.json"))
	for _, tok := range []string{tok1, tok2} {
		for _, b := range append(bodies, d.Logs.String(), d2.Logs.String(), string(state)) {
			if strings.Contains(b, tok) {
				t.Fatalf("the token leaked into a response, a log or the state file")
			}
		}
	}
}

func readToken(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	novatest.Must(t, err)
	tok := strings.TrimSpace(string(b))
	if len(tok) < 32 {
		t.Fatalf("token too short: %d", len(tok))
	}
	return tok
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	// Each case has its own homes and novads; "port in use" waits out
	// novad's bind retry (5 s).
	t.Run("invalid config", func(t *testing.T) {
		t.Parallel()
		h := novatest.NewHome(t, "retrieval: {topK: 99}\n")
		if code := h.Launch().WaitExit(10 * time.Second); code != 78 {
			t.Errorf("exit %d, want 78", code)
		}
	})
	t.Run("unknown key", func(t *testing.T) {
		t.Parallel()
		h := novatest.NewHome(t, "retreival: {topK: 5}\n")
		if code := h.Launch().WaitExit(10 * time.Second); code != 78 {
			t.Errorf("exit %d, want 78", code)
		}
	})
	t.Run("non-loopback host", func(t *testing.T) {
		t.Parallel()
		h := novatest.NewHome(t, "")
		cfg := filepath.Join(h.Dir, "config.yaml")
		b, _ := os.ReadFile(cfg)
		novatest.Must(t, os.WriteFile(cfg, []byte(strings.Replace(string(b), "host: 127.0.0.1", "host: 0.0.0.0", 1)), 0o644))
		d := h.Launch()
		if code := d.WaitExit(10 * time.Second); code != 77 {
			t.Errorf("exit %d, want 77", code)
		}
		if !strings.Contains(d.Logs.String(), "rag-server-non-loopback") {
			t.Errorf("log does not name the code: %s", d.Logs.String())
		}
		if _, err := os.Stat(filepath.Join(h.Dir, "state", "internal-token")); err == nil {
			t.Error("a refused start wrote a token")
		}
	})
	t.Run("port in use", func(t *testing.T) {
		t.Parallel()
		h := novatest.NewHome(t, "")
		d1 := h.Start()
		port := strings.TrimPrefix(d1.Direct, "http://127.0.0.1:")
		if _, err := strconv.Atoi(port); err != nil {
			t.Fatal(err)
		}
		other := novatest.NewHome(t, "")
		cfg := filepath.Join(other.Dir, "config.yaml")
		b, _ := os.ReadFile(cfg)
		novatest.Must(t, os.WriteFile(cfg, []byte(strings.Replace(string(b), "port: 0}\nfacade", "port: "+port+"}\nfacade", 1)), 0o644))
		d2 := other.Launch()
		if code := d2.WaitExit(15 * time.Second); code != 75 || !strings.Contains(d2.Logs.String(), "port in use") {
			t.Errorf("exit %d, want 75 for the port:\n%s", code, d2.Logs.String())
		}
		if _, err := os.Stat(filepath.Join(other.Dir, "state", "internal-token")); err == nil {
			t.Error("the instance that lost the bind wrote a token")
		}
	})
	t.Run("another novad serves the home", func(t *testing.T) {
		t.Parallel()
		// Reliability F11: on other ports, a second novad would rewrite
		// the token and state under the first, whose /encode would then
		// refuse every client.
		h := novatest.NewHome(t, "")
		h.Sync()
		d1 := h.Start()
		tokenPath := filepath.Join(h.Dir, "state", "internal-token")
		tok := readToken(t, tokenPath)
		d2 := h.Launch()
		if code := d2.WaitExit(15 * time.Second); code != 75 || !strings.Contains(d2.Logs.String(), "another novad serves this home") {
			t.Errorf("exit %d, want 75 naming the other novad:\n%s", code, d2.Logs.String())
		}
		if readToken(t, tokenPath) != tok {
			t.Error("the second novad rewrote the serving one's token")
		}
		r := do(t, http.MethodPost, d1.Direct+api.PathEncode, `{"texts":["dashboard port"]}`, map[string]string{api.HeaderInternalToken: tok})
		if r.status != 200 {
			t.Errorf("the serving novad's /encode after a second start: %d %s", r.status, r.body)
		}
	})
}

// TestTextOutputIsInert: memory holding escape sequences (a transcript of
// coloured tool output, a crafted note) is printed by novactl search as
// text: a title change, a clipboard write or a colour must not reach the
// terminal. JSON output keeps the text as stored, escaped by JSON.
func TestTextOutputIsInert(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	f, err := os.OpenFile(filepath.Join(h.Data, "records.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	novatest.Must(t, err)
	_, err = f.WriteString(`{"id":"esc-1","title":"Mango \u001b[7mharvest","text":"mango crates \u001b]0;pwned\u0007 and \u001b]52;c;ZXZpbA==\u0007 \u001b[31mred mango\u001b[0m"}` + "\n")
	novatest.Must(t, err)
	novatest.Must(t, f.Close())
	h.Sync()
	h.Start()
	out, errOut, code := h.Novactl("search", "mango crates harvest")
	if code != 0 || !strings.Contains(out, "red mango") {
		t.Fatalf("search: exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("escape sequences reached the terminal: %q", out)
	}
	js, _, _ := h.Novactl("search", "--json", "mango crates harvest")
	if !strings.Contains(js, `\u001b]52;c;`) {
		t.Errorf("--json lost the stored text: %s", js)
	}
}
