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

// TestRecall_dayOne: a Day One export folder (its Journal.json as
// exported, beside its photos), synced by a jsonl source that lists
// *.json, is recalled through a real build and search: an entry's words,
// as written (not "ridge\.") and the place it was written at find it.
// Before, Journal.json was a problem and none of its entries were found.
func TestRecall_dayOne(t *testing.T) {
	journal := "{\n  \"metadata\" : {\n    \"version\" : \"1.0\"\n  },\n  \"entries\" : [\n    {\n" +
		"      \"location\" : {\n        \"localityName\" : \"Bolinas\",\n        \"country\" : \"United States\",\n        \"placeName\" : \"Alamere Falls Trail\"\n      },\n" +
		"      \"creationDate\" : \"2024-05-04T18:00:00Z\",\n" +
		"      \"text\" : \"Swam below the waterfall\\\\. Cold\\\\!\\n\\n![](dayone-moment:\\/\\/9C3F2A1B0E4D4C5B8A7F6E5D4C3B2A19)\",\n" +
		"      \"timeZone\" : \"America\\/Los_Angeles\",\n      \"uuid\" : \"6A1F0C2B9E3D4F5A8B7C6D5E4F3A2B1C\"\n    }\n  ]\n}\n"
	served := recallFiles(t, config.Source{Kind: config.KindJSONL, Include: []string{"*.json"}}, map[string]string{
		"Day One/Journal.json":                                 journal,
		"Day One/photos/0f3c5a6b7d8e9f00112233445566778a.jpeg": "\xff\xd8\xff\xe0 not text",
	}, "waterfall swim", "Alamere Falls")
	for _, want := range []string{"Swam below the waterfall. Cold!", "Alamere Falls Trail", "Journal.json"} {
		if !strings.Contains(served, want) {
			t.Errorf("search did not serve %q: %s", want, served)
		}
	}
}
