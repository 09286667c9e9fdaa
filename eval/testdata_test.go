package eval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestLoadLoCoMo_shippedSets loads every set in testdata with the real
// loader and checks what the loader itself lets pass: a session without a
// date, and a question without evidence, are taken as they are, so a
// slip in either would quietly change what is measured.
func TestLoadLoCoMo_shippedSets(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/*.json")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			recs, qs, _, err := LoadLoCoMo(path)
			if err != nil {
				t.Fatal(err)
			}
			ids := map[string]bool{}
			for _, r := range recs {
				ids[r.ID] = true
				if r.Date == "" || r.Session == "" || r.Agent == "" {
					t.Errorf("turn %s lacks a date, session or speaker (does session_N_date_time parse?)", r.ID)
				}
			}
			for _, q := range qs {
				if categoryNames[q.Category] == "" {
					t.Errorf("question %q has category %d, which LoCoMo does not name", q.Text, q.Category)
				}
				for _, e := range q.Evidence {
					if !ids[e] {
						t.Errorf("question %q cites %s, which is no turn", q.Text, e)
					}
				}
			}
			// The loader drops a question without evidence: count them in
			// the file to see none was.
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var samples []struct {
				QA []json.RawMessage `json:"qa"`
			}
			if err := json.Unmarshal(raw, &samples); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, s := range samples {
				n += len(s.QA)
			}
			if n != len(qs) {
				t.Errorf("%d questions in the file, %d loaded: some have no evidence", n, len(qs))
			}
		})
	}
}
