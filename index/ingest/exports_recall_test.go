package ingest_test

import (
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
)

// TestRecall_googleKeep: a Google Takeout Keep folder, synced by a jsonl
// source that lists *.json, is recalled through a real build and search:
// a note's words and a checklist's item find it; a trashed note's words
// find nothing of it.
func TestRecall_googleKeep(t *testing.T) {
	note := func(trashed, fields string) string {
		return `{"color":"DEFAULT","isTrashed":` + trashed + `,"isPinned":false,"isArchived":false,` + fields +
			`,"userEditedTimestampUsec":1718000000123456,"createdTimestampUsec":1717000000000000}`
	}
	served := recallFiles(t, config.Source{Kind: config.KindJSONL, Include: []string{"*.json"}}, map[string]string{
		"Takeout/Keep/Boiler.json":  note("false", `"textContent":"The boiler service engineer is Priya, call before October","title":"Boiler","labels":[{"name":"House"}]`),
		"Takeout/Keep/Boiler.html":  "<html><body>The boiler service engineer is Priya</body></html>",
		"Takeout/Keep/Camping.json": note("false", `"listContent":[{"text":"tent pegs","isChecked":true},{"text":"headlamp batteries","isChecked":false}],"title":"Camping"`),
		"Takeout/Keep/Binned.json":  note("true", `"textContent":"zanzibar holiday plan I dropped","title":"Binned"`),
	}, "boiler engineer", "headlamp batteries", "zanzibar holiday")
	for _, want := range []string{"Priya", "headlamp batteries", "Boiler.json", "Camping.json"} {
		if !strings.Contains(served, want) {
			t.Errorf("search did not serve %q: %s", want, served)
		}
	}
	if strings.Contains(served, "zanzibar") {
		t.Errorf("search served the trashed note: %s", served)
	}
}
