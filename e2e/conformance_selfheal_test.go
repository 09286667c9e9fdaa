package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestConformance_facadeStats: the facade's /stats is the direct /stats
// with available, ragStatus and the contract added while search works,
// and says why not (ragStatus.freshness.status), with the read-only api
// block and the contract, while it does not (conformance 1.19).
func TestConformance_facadeStats(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	d := h.Start()
	check := func(t *testing.T, wantAvailable bool) {
		t.Helper()
		// The contract names the profile served, which the first index sets.
		contract := do(t, http.MethodGet, d.Facade+api.PathFacadeContract, "", nil).json(t)
		r := do(t, http.MethodGet, d.Facade+api.PathFacadeStats, "", nil)
		direct := do(t, http.MethodGet, d.Direct+api.PathStats, "", nil).json(t)
		if r.status != http.StatusOK {
			t.Fatalf("facade stats %d: %s", r.status, r.body)
		}
		m := r.json(t)
		rs, _ := m["ragStatus"].(map[string]any)
		fr, _ := rs["freshness"].(map[string]any)
		if m["available"] != wantAvailable || rs == nil || rs["searchAvailable"] != wantAvailable {
			t.Errorf("conformance 1.19: available %v, ragStatus.searchAvailable %v, want %v", m["available"], rs["searchAvailable"], wantAvailable)
		}
		if !reflect.DeepEqual(m["externalAgentContract"], contract) {
			t.Errorf("conformance 1.19: externalAgentContract is not the contract document: %v", m["externalAgentContract"])
		}
		want := map[string]any{"readOnly": true, "mutationAllowed": false, "rejectedMutationStatus": 403.0,
			"endpoints": map[string]any{"health": "GET /health", "stats": "GET /stats", "search": "POST /search"}}
		if !reflect.DeepEqual(m["api"], want) {
			t.Errorf("conformance 1.19: api %v, want %v", m["api"], want)
		}
		if wantAvailable {
			if _, ok := m["reason"]; ok {
				t.Errorf("conformance 1.19: an available facade gives a reason %v", m["reason"])
			}
		} else if reason, _ := m["reason"].(string); reason == "" || reason != fr["status"] {
			t.Errorf("conformance 1.19: reason %q, want ragStatus.freshness.status %q", reason, fr["status"])
		}
		// The rest is the direct /stats, key for key.
		for _, k := range []string{"available", "reason", "ragStatus", "externalAgentContract"} {
			delete(m, k)
		}
		if !reflect.DeepEqual(m, direct) {
			t.Errorf("conformance 1.19: facade stats without its additions is not the direct /stats:\nfacade %v\ndirect %v", m, direct)
		}
	}
	t.Run("unavailable", func(t *testing.T) { check(t, false) })
	h.Sync()
	waitFor(t, 30*time.Second, "novad to serve the first index", func() bool {
		return do(t, http.MethodGet, d.Facade+api.PathFacadeHealth, "", nil).json(t)["available"] == true
	})
	t.Run("available", func(t *testing.T) { check(t, true) })
}

// TestConformance_neverSelfHeal: while the index is unavailable (none
// built, the manifest gone, the only generation damaged, novad down), the
// health, stats, contract and search of both surfaces and novactl search
// answer "not available" and change nothing: no file under NOVA_HOME is
// written (no build, no promotion, no token or settings change) and no
// process is started (conformance 2.10). One deliberate difference: with
// the manifest removed while generations are kept, novad serves the
// newest intact one (README, "What novactl doctor reports": index-missing),
// reading it only; the manifest is not written back.
func TestConformance_neverSelfHeal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, h *novatest.Home)
		down  bool
		// serves: novad serves a kept generation (see above).
		serves bool
	}{
		{name: "no index", setup: func(*testing.T, *novatest.Home) {}},
		{name: "manifest removed", serves: true, setup: func(t *testing.T, h *novatest.Home) {
			h.Sync()
			novatest.Must(t, os.Remove(filepath.Join(h.Dir, "index", "manifest.json")))
		}},
		{name: "generation damaged", setup: func(t *testing.T, h *novatest.Home) {
			h.Sync()
			damages[0].do(t, generationDir(h, activeRunID(t, h)))
		}},
		{name: "novad down", down: true, setup: func(t *testing.T, h *novatest.Home) { h.Sync() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := novatest.NewHome(t, "")
			tc.setup(t, h)
			var d *novatest.Daemon
			if !tc.down {
				d = h.Start()
			}
			state := filepath.Join(h.Dir, "state", "server-state.json")
			stateBefore, _ := os.ReadFile(state)
			before := snapshot(t, h.Dir)
			procsBefore := novadProcesses(t)
			if d != nil && !slices.Contains(procsBefore, d.Cmd.Process.Pid) {
				t.Fatalf("fixture: the process list %v misses novad (%d)", procsBefore, d.Cmd.Process.Pid)
			}

			if d != nil {
				for _, u := range []string{d.Facade + api.PathFacadeHealth, d.Facade + api.PathFacadeStats, d.Facade + api.PathFacadeContract,
					d.Direct + api.PathHealth, d.Direct + api.PathStats} {
					if r := do(t, http.MethodGet, u, "", nil); r.status != http.StatusOK {
						t.Errorf("%s: %d %s", u, r.status, r.body)
					} else if m := r.json(t); strings.HasSuffix(u, "/health") && strings.Contains(u, "external") && m["available"] != tc.serves {
						t.Errorf("conformance 2.10: %s available %v", u, m["available"])
					}
				}
				for _, u := range []string{d.Facade + api.PathFacadeSearch, d.Direct + api.PathSearch} {
					r := do(t, http.MethodPost, u, `{"query":"why was the dashboard port unavailable"}`, nil)
					if m := r.json(t); r.status != http.StatusOK || m["available"] != tc.serves {
						t.Errorf("conformance 2.10: %s: %d available %v reason %v", u, r.status, m["available"], m["reason"])
					}
				}
			}
			out, errs, code := h.Novactl("search", "--json", "why was the dashboard port unavailable")
			var m map[string]any
			_ = json.Unmarshal([]byte(out), &m)
			// With --json an unreachable novad is an envelope too.
			if code != 0 || m["available"] != tc.serves {
				t.Errorf("conformance 2.10: novactl search exit %d: %s %s", code, out, errs)
			}

			if after := snapshot(t, h.Dir); !reflect.DeepEqual(before, after) {
				t.Errorf("conformance 2.10: files under NOVA_HOME changed:\nbefore %v\nafter  %v", before, after)
			}
			if stateAfter, _ := os.ReadFile(state); string(stateAfter) != string(stateBefore) {
				t.Errorf("conformance 2.10: server-state.json changed:\nbefore %s\nafter  %s", stateBefore, stateAfter)
			}
			if procs := novadProcesses(t); !reflect.DeepEqual(procs, procsBefore) {
				t.Errorf("conformance 2.10: novad processes %v, were %v", procs, procsBefore)
			}
		})
	}
}

// novadProcesses lists the pids of running processes of this test's
// novad binary, and of any process they started; it skips the test where
// /proc cannot tell.
func novadProcesses(t *testing.T) []int {
	t.Helper()
	bin := novatest.Binary(t, "novad")
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc to list processes with")
	}
	parents := map[int]int{}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // exited meanwhile
		}
		// The command name (field 2) may hold spaces; the parent pid is
		// the second field after its closing parenthesis.
		if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 1 {
			parents[pid], _ = strconv.Atoi(f[1])
		}
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && exe == bin {
			pids = append(pids, pid)
		}
	}
	out := append([]int(nil), pids...)
	for pid, ppid := range parents {
		for _, n := range pids {
			if ppid == n {
				out = append(out, pid)
			}
		}
	}
	slices.Sort(out)
	return out
}
