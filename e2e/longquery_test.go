package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/contracttest"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestPastedQueries: through novad's facade, a traceback pasted whole up
// to the query limit finds the memory of its error in a valid envelope;
// one character more is refused with 422 in a valid envelope that names
// the limit, which the contract states, and a body past its limit with
// 413 in one.
func TestPastedQueries(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	novatest.Must(t, os.WriteFile(filepath.Join(h.Data, "incident.jsonl"), []byte(`{"id":"pg-slots","text":"The worker crashed with psycopg2.OperationalError: remaining connection slots are reserved on db.internal port 6543. Fix: lower the pool size to 20 and put pgbouncer in front.","date":"2026-05-02","agent":"codex","project":"worker"}`+"\n"), 0o644))
	h.Sync()
	d := h.Start()

	var b strings.Builder
	b.WriteString("Traceback (most recent call last): ")
	for i := 0; b.Len() < api.MaxQueryRunes-300; i++ {
		fmt.Fprintf(&b, "File \"/srv/app/.venv/lib/python3.12/site-packages/worker/layer%d.py\", line %d, in handle_%d return self.next_%d(request, context) ", i, 40+i, i, i)
	}
	b.WriteString(`psycopg2.OperationalError: connection to server at "db.internal" (10.0.4.7), port 6543 failed: FATAL: remaining connection slots are reserved`)
	q := b.String()
	body, err := json.Marshal(api.SearchBody{Query: q, TopK: 5})
	novatest.Must(t, err)
	r := search(t, d.Facade, string(body))
	if r.status != http.StatusOK {
		t.Fatalf("a %d-character traceback: %d %s", len(q), r.status, r.body)
	}
	novatest.Must(t, contracttest.Validate(contracttest.SearchResponse, r.body, true))
	var resp api.SearchResponse
	novatest.Must(t, json.Unmarshal(r.body, &resp))
	if len(resp.Results) == 0 || !strings.HasSuffix(resp.Results[0].ID, "pg-slots") {
		t.Errorf("a pasted traceback's results start %v, want the memory of its error", resp.Results)
	}
	if resp.QueryPlan.AnchorsOmitted == 0 || len(resp.QueryPlan.Anchors) > 32 {
		t.Errorf("queryPlan keeps %d anchors and omits %d", len(resp.QueryPlan.Anchors), resp.QueryPlan.AnchorsOmitted)
	}

	long := strings.Repeat("a", api.MaxQueryRunes+1)
	r = search(t, d.Facade, `{"query":"`+long+`"}`)
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), fmt.Sprint(api.MaxQueryRunes)) {
		t.Errorf("a query past the limit: %d %.300s", r.status, r.body)
	}
	novatest.Must(t, contracttest.Validate(contracttest.SearchResponse, r.body, true))

	// A paste past the body limit is refused before it is parsed, in
	// the same envelope.
	r = search(t, d.Facade, `{"query":"`+strings.Repeat("a ", api.MaxSearchBodyBytes/2)+`"}`)
	if r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("a body past %d bytes: %d %.300s", api.MaxSearchBodyBytes, r.status, r.body)
	}
	novatest.Must(t, contracttest.Validate(contracttest.SearchResponse, r.body, true))

	var c api.Contract
	novatest.Must(t, json.Unmarshal(do(t, http.MethodGet, d.Facade+api.PathFacadeContract, "", nil).body, &c))
	if c.SearchRequest.Query.MaxCharacters != api.MaxQueryRunes {
		t.Errorf("the contract's query limit is %d", c.SearchRequest.Query.MaxCharacters)
	}
}
