package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/internal/novatest"
)

// TestIndexSync_jsonArraySearchable: records exported as one
// pretty-printed JSON array, in a jsonl source that includes *.json, are
// found by novactl search after novactl index sync, each at its element's
// line, and the sync reports nothing skipped. Before, the array's
// multi-line objects were each reported line by line, and none indexed.
func TestIndexSync_jsonArraySearchable(t *testing.T) {
	src := filepath.Join(t.TempDir(), "exports")
	novatest.Must(t, os.MkdirAll(src, 0o700))
	records := "[\n" +
		"  {\n    \"id\": \"a1\",\n    \"text\": \"the deploy key of the kestrel cluster rotates monthly\",\n    \"project\": \"ops\"\n  },\n" +
		"  {\n    \"id\": \"a2\",\n    \"text\": \"the billing api of the heron service uses postgres\",\n    \"project\": \"billing\"\n  }\n" +
		"]\n"
	novatest.Must(t, os.WriteFile(filepath.Join(src, "records.json"), []byte(records), 0o600))
	env := configHome(t, "server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\nsources:\n"+
		"  - {name: exports, kind: jsonl, path: '"+src+"', include: ['*.json']}\n")
	code, out, errOut := runCLI(t.Context(), env, "index", "sync", "--in-process", "--json")
	if code != ExitOK {
		t.Fatalf("index sync: exit %d\n%s\n%s", code, out, errOut)
	}
	var synced struct {
		Result struct {
			Build struct {
				Records      int
				ProblemCount int
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &synced); err != nil || synced.Result.Build.Records != 2 || synced.Result.Build.ProblemCount != 0 {
		t.Fatalf("index sync: %+v (%v), want 2 records and no problem\n%s", synced, err, out)
	}
	cfg, err := config.Load(env)
	novatest.Must(t, err)
	startNovad(t, cfg)
	waitGenerationLoaded(t, cfg)
	code, out, errOut = runCLI(t.Context(), env, "search", "kestrel deploy key", "--json")
	var got api.SearchResponse
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != ExitOK || len(got.Results) == 0 {
		t.Fatalf("search: exit %d (%v)\n%s\n%s", code, err, out, errOut)
	}
	top := got.Results[0]
	if top.SourceID != "a1" || top.Provenance.LineNumber != 2 || !strings.Contains(top.TextPreview, "kestrel") {
		t.Errorf("top result %s at line %d (%q), want a1 at line 2", top.SourceID, top.Provenance.LineNumber, top.TextPreview)
	}
}
