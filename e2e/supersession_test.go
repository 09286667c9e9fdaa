package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestSupersession_throughNovad: three versions of one subject in a
// JSONL export, served by novad: on the facade and the direct surface
// alike the newest ranks first and the older ones, results and
// citations, say they are superseded by its id, and so does novactl
// search's text. Once the newest line is
// removed and the export synced again, novad serves the middle one as
// the newest, and no result names the removed id.
func TestSupersession_throughNovad(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	state := filepath.Join(h.Data, "state.jsonl")
	lines := []string{
		`{"id":"gw-1","subject":"walrus gateway","date":"2026-09-01","project":"infra","text":"The walrus gateway port is 8080; the walrus gateway port is fixed."}`,
		`{"id":"gw-2","subject":"Walrus Gateway","date":"2026-10-01","project":"infra","text":"The walrus gateway port moved to 9090."}`,
		`{"id":"gw-3","subject":"walrus  gateway","date":"2026-11-01","project":"infra","text":"The walrus gateway now listens on 7070."}`,
	}
	novatest.Must(t, os.WriteFile(state, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	h.Sync()
	d := h.Start()

	type version struct {
		ID           string `json:"id"`
		SourceID     string `json:"sourceId"`
		Superseded   bool   `json:"superseded"`
		SupersededBy string `json:"supersededBy"`
	}
	type answer struct {
		Results      []version `json:"results"`
		CitationPack []struct {
			ResultID     string `json:"resultId"`
			Superseded   bool   `json:"superseded"`
			SupersededBy string `json:"supersededBy"`
		} `json:"citationPack"`
	}
	ask := func(url string) answer {
		t.Helper()
		r := do(t, http.MethodPost, url, `{"query":"walrus gateway port","filters":{"project":"infra"}}`, nil)
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", url, r.status, r.body)
		}
		var a answer
		novatest.Must(t, json.Unmarshal(r.body, &a))
		return a
	}
	// check asserts that newest is the first result and each other
	// version of the subject is superseded by it, in results and
	// citations; gone must appear nowhere.
	check := func(surface string, a answer, newest, gone string) {
		t.Helper()
		flags := map[string]string{}
		for _, r := range a.Results {
			if !strings.HasPrefix(r.SourceID, "gw-") {
				continue
			}
			flags[r.ID] = r.SupersededBy
			if r.Superseded != (r.ID != newest) || (r.ID != newest && r.SupersededBy != newest) {
				t.Errorf("%s: %s superseded %v by %q, want the newest %s", surface, r.ID, r.Superseded, r.SupersededBy, newest)
			}
			if r.ID == gone || r.SupersededBy == gone && gone != "" {
				t.Errorf("%s: %s names the removed version %s", surface, r.ID, gone)
			}
		}
		if len(a.Results) == 0 || a.Results[0].ID != newest {
			t.Errorf("%s: results %v, want %s first", surface, flags, newest)
		}
		for _, c := range a.CitationPack {
			if by, ok := flags[c.ResultID]; ok && (c.Superseded != (by != "") || c.SupersededBy != by) {
				t.Errorf("%s: citation of %s superseded %v by %q, its result by %q", surface, c.ResultID, c.Superseded, c.SupersededBy, by)
			}
		}
	}
	for _, s := range []struct{ name, url string }{{"facade", d.Facade + api.PathFacadeSearch}, {"direct", d.Direct + api.PathSearch}} {
		check(s.name, ask(s.url), "records:gw-3", "")
	}
	// A person reading novactl search is told as well: an older state
	// printed like the current one reads as current.
	out, errs, code := h.Novactl("search", "--project", "infra", "walrus gateway port")
	if code != 0 {
		t.Fatalf("novactl search: %d\n%s%s", code, out, errs)
	}
	if n := strings.Count(out, "superseded by records:gw-3"); n != 2 {
		t.Errorf("novactl search says %d times that a version is superseded by records:gw-3, want 2 (gw-1, gw-2):\n%s", n, out)
	}

	novatest.Must(t, os.WriteFile(state, []byte(strings.Join(lines[:2], "\n")+"\n"), 0o644))
	h.Sync()
	waitFor(t, 60*time.Second, "the removed version to be forgotten", func() bool {
		for _, r := range ask(d.Facade + api.PathFacadeSearch).Results {
			if r.ID == "records:gw-3" {
				return false
			}
		}
		return true
	})
	for _, s := range []struct{ name, url string }{{"facade", d.Facade + api.PathFacadeSearch}, {"direct", d.Direct + api.PathSearch}} {
		check(s.name, ask(s.url), "records:gw-2", "records:gw-3")
	}
}
