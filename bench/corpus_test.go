package bench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func writeCorpus(t *testing.T, opts CorpusOptions) ([]byte, CorpusStats) {
	t.Helper()
	var b bytes.Buffer
	st, err := NewCorpus(opts).WriteJSONL(&b)
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), st
}

func TestCorpusDeterministic(t *testing.T) {
	opts := CorpusOptions{Records: 2000, Seed: 7, ChineseShare: DefaultChineseShare}
	a, sa := writeCorpus(t, opts)
	b, sb := writeCorpus(t, opts)
	if !bytes.Equal(a, b) || sa != sb {
		t.Fatal("the same options and seed gave different corpora")
	}
	opts.Seed = 8
	c, _ := writeCorpus(t, opts)
	if bytes.Equal(a, c) {
		t.Fatal("different seeds gave the same corpus")
	}
	// Record(i) is the i-th line: random access agrees with the stream.
	cor := NewCorpus(CorpusOptions{Records: 2000, Seed: 7, ChineseShare: DefaultChineseShare})
	lines := bytes.Split(bytes.TrimSpace(a), []byte("\n"))
	for _, i := range []int{0, 1, 999, 1999} {
		var r Record
		if err := json.Unmarshal(lines[i], &r); err != nil {
			t.Fatal(err)
		}
		if got := cor.Record(i); got.ID != r.ID || got.Text != r.Text || got.Date != r.Date {
			t.Fatalf("Record(%d) = %+v, line says %+v", i, got, r)
		}
	}
}

func TestCorpusShape(t *testing.T) {
	data, st := writeCorpus(t, CorpusOptions{Records: 5000, Seed: 1, ChineseShare: 0.2})
	if st.Records != 5000 || st.MinChars < MinRecordChars || st.MaxChars > MaxRecordChars {
		t.Fatalf("stats %+v: want 5000 records of %d-%d chars", st, MinRecordChars, MaxRecordChars)
	}
	if st.MedianChars < 120 || st.MedianChars > 500 {
		t.Errorf("median length %d: want a log-normal around 150-300 chars", st.MedianChars)
	}
	if share := float64(st.ChineseRecords) / 5000; share < 0.1 || share > 0.3 {
		t.Errorf("Chinese share %.3f, want about 0.2", share)
	}
	ids := map[string]bool{}
	sessions := map[string]int{}
	var prevSession string
	var idents = map[string]bool{"ticket": false, "hash": false, "port": false, "file": false, "date": false}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		if r.ID == "" || r.Text == "" || r.Date == "" || r.Agent == "" || r.Role == "" || r.Project == "" || r.Session == "" {
			t.Fatalf("record with an empty field: %+v", r)
		}
		if ids[r.ID] {
			t.Fatalf("duplicate id %s", r.ID)
		}
		ids[r.ID] = true
		if r.Session != prevSession {
			if sessions[r.Session] > 0 {
				t.Fatalf("session %s is not one run of consecutive turns", r.Session)
			}
			prevSession = r.Session
		}
		sessions[r.Session]++
		if n := utf8.RuneCountInString(r.Text); n < MinRecordChars || n > MaxRecordChars {
			t.Fatalf("record %s has %d chars", r.ID, n)
		}
		for _, w := range strings.Fields(r.Text) {
			w = strings.TrimRight(w, ".,?:")
			switch {
			case strings.Contains(w, "-") && strings.ToUpper(w) == w && strings.ContainsAny(w, "0123456789") && strings.ContainsAny(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"):
				idents["ticket"] = true
			case strings.HasPrefix(w, "src/") || strings.HasPrefix(w, "internal/"):
				idents["file"] = true
			case len(w) == 40 && strings.Trim(w, "0123456789abcdef") == "":
				idents["hash"] = true
			case w == "port":
				idents["port"] = true
			case len(w) == 10 && w[4] == '-' && w[7] == '-':
				idents["date"] = true
			}
		}
	}
	for k, ok := range idents {
		if !ok {
			t.Errorf("no %s identifier in 5000 records", k)
		}
	}
	if len(sessions) < 100 {
		t.Errorf("%d sessions for 5000 records: want sessions of a few to 40 turns", len(sessions))
	}
}

func TestQueries(t *testing.T) {
	c := NewCorpus(CorpusOptions{Records: 3000, Seed: 3, ChineseShare: DefaultChineseShare})
	qs := c.Queries(20, 3)
	again := c.Queries(20, 3)
	if len(qs) != len(again) {
		t.Fatal("query generation is not deterministic")
	}
	for i := range qs {
		if qs[i] != again[i] {
			t.Fatalf("query %d differs between runs: %+v vs %+v", i, qs[i], again[i])
		}
	}
	byID := map[string]Record{}
	var all strings.Builder
	for i := 0; i < c.Len(); i++ {
		r := c.Record(i)
		byID[r.ID] = r
		all.WriteString(strings.ToLower(r.Text) + "\n")
	}
	counts := map[string]int{}
	for _, q := range qs {
		counts[q.Kind]++
		if q.Text == "" {
			t.Fatalf("empty query %+v", q)
		}
		if q.Kind == KindMiss {
			for _, w := range strings.Fields(q.Text) {
				if strings.Contains(all.String(), w) {
					t.Fatalf("miss word %q occurs in the corpus", w)
				}
			}
			continue
		}
		r, ok := byID[q.Target]
		if !ok {
			t.Fatalf("query %s targets unknown record %q", q.ID, q.Target)
		}
		switch q.Kind {
		case KindExactID, KindKeyword, KindFiltered:
			text := q.Text
			text = strings.TrimPrefix(strings.TrimPrefix(text, "what changed in "), "details of ")
			for _, w := range strings.Fields(text) {
				if !strings.Contains(strings.ToLower(r.Text), strings.ToLower(w)) {
					t.Errorf("%s: %q is not in the target %s", q.ID, w, r.Text)
				}
			}
		case KindChinese:
			if !strings.ContainsFunc(q.Text, func(r rune) bool { return r >= 0x4e00 && r <= 0x9fff }) {
				t.Errorf("%s: %q has no Chinese", q.ID, q.Text)
			}
		}
		if q.Kind == KindFiltered {
			if q.Project == "" && q.DateFrom == "" {
				t.Errorf("%s has no filter", q.ID)
			}
			if q.Project != "" && q.Project != r.Project {
				t.Errorf("%s: project filter %s excludes its target (%s)", q.ID, q.Project, r.Project)
			}
			if d := dayOf(r.Date); q.DateFrom != "" && (d < q.DateFrom || d > q.DateTo) {
				t.Errorf("%s: date filter %s..%s excludes its target (%s)", q.ID, q.DateFrom, q.DateTo, d)
			}
		}
	}
	for _, k := range QueryKinds {
		if counts[k] != 20 {
			t.Errorf("%d %s queries, want 20", counts[k], k)
		}
	}
}

func TestFTSMatch(t *testing.T) {
	for in, want := range map[string]string{
		"NOVA-123":                       `"NOVA-123"`,
		"how did we fix the cache":       `"fix" OR "cache"`,
		`say "hi" to src/app/update.py?`: `"say" OR "hi" OR "src/app/update.py"`,
		"?? !!":                          "",
	} {
		if got := ftsMatch(in); got != want {
			t.Errorf("ftsMatch(%q) = %s, want %s", in, got, want)
		}
	}
}
