package search_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/lexical"
)

// records writes JSONL records to a file of a temporary directory and
// returns it as a source.
func records(t *testing.T, lines ...string) config.Source {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "records.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return config.Source{Name: "mem", Kind: config.KindJSONL, Path: dir}
}

// TestQuality_anchorInAnotherFormIsCovered: an anchor the query writes in
// another form than the memory (traditional Chinese, a decomposed accent,
// full-width letters as an IME types them) is the same term, as it is to
// every other key term. The anchors kept the query's form, so the result
// that holds the term was reported missing it and the search weak, and a
// full-width identifier was no anchor at all.
func TestQuality_anchorInAnotherFormIsCovered(t *testing.T) {
	snap := build(t, records(t,
		`{"id":"a","date":"2026-05-04","text":"Deploy of RC-204 went fine; the 设定档 changed."}`,
		`{"id":"b","date":"2026-05-05","text":"The café on the corner opened."}`,
		`{"id":"c","date":"2026-05-06","text":"We baked sourdough bread."}`,
	))
	e := engineWith()
	for _, tt := range []struct{ query, anchor string }{
		{"「設定檔」", "设定档"},
		{"\"cafe\u0301\"", "cafe"}, // Normalize folds accents (lexical 75596a6)
		{"ＲＣ－２０４ deploy", "rc-204"},
		{"＂went fine＂", "went fine"},
	} {
		t.Run(tt.query, func(t *testing.T) {
			r := ask(t, e, snap, api.SearchRequest{Query: tt.query})
			if !slices.Contains(r.QueryPlan.Anchors, tt.anchor) {
				t.Errorf("anchors %q, want %q among them", r.QueryPlan.Anchors, tt.anchor)
			}
			if len(r.Quality.MissingTerms) > 0 || r.Quality.Status != "strong" {
				t.Errorf("quality %s, missing %q of key terms %q; the memory holds them", r.Quality.Status, r.Quality.MissingTerms, r.Quality.KeyTerms)
			}
			seen := map[string]bool{}
			for _, k := range r.Quality.KeyTerms {
				if seen[k] {
					t.Errorf("key term %q twice in %q", k, r.Quality.KeyTerms)
				}
				seen[k] = true
			}
		})
	}
}

// TestCitation_excerptIsOfTheWholeText: a citation's excerpt is the
// memory's text with its white space collapsed, whether or not the
// response carries the full text. It was made of the 500-character
// preview when includeFullText was false, so text indented with runs of
// spaces gave an excerpt that stopped short, without "...", of the words
// the citation says it matched.
func TestCitation_excerptIsOfTheWholeText(t *testing.T) {
	var b strings.Builder
	for i := range 30 {
		b.WriteString("step" + string(rune('a'+i%26)) + strings.Repeat(" ", 25))
	}
	b.WriteString("finale")
	text, err := json.Marshal(b.String())
	if err != nil {
		t.Fatal(err)
	}
	snap := build(t, records(t, `{"id":"a","date":"2026-05-04","text":`+string(text)+`}`))
	want := strings.Join(strings.Fields(b.String()), " ")
	for _, full := range []bool{false, true} {
		r := ask(t, engineWith(), snap, api.SearchRequest{Query: "stepa finale", IncludeFullText: full})
		if len(r.CitationPack) == 0 {
			t.Fatalf("includeFullText %v: no citation", full)
		}
		if got := r.CitationPack[0].Excerpt; got != want {
			t.Errorf("includeFullText %v: excerpt\n%q\nwant\n%q", full, got, want)
		}
	}
}

// TestCitation_cutsBetweenCharacters: the preview (500 characters) and
// the excerpt (277 and "...") are cut between user-perceived characters
// (grapheme clusters), never inside one. A cut inside one said something
// else: a family emoji became a man, a flag a letter J, a Devanagari
// syllable lost its vowel, a thumbs-up its skin tone.
func TestCitation_cutsBetweenCharacters(t *testing.T) {
	for name, cluster := range map[string]string{
		"zwj":      "👨\u200d👩\u200d👧",
		"flag":     "🇯🇵",
		"mark":     "नि",
		"modifier": "👍🏽",
		"accent":   "q\u0303",
	} {
		t.Run(name, func(t *testing.T) {
			word := strings.Repeat("a", 9) + " " // 10 characters
			preview := strings.Repeat(word, 49) + "bbbbbbbbb"
			excerpt := strings.Repeat(word, 27) + "cccccc"
			lines := []string{
				fmt.Sprintf(`{"id":"p","date":"2026-05-04","text":%q}`, preview+cluster+" zeta"),
				fmt.Sprintf(`{"id":"e","date":"2026-05-05","text":%q}`, excerpt+cluster+" "+strings.Repeat("d", 20)+" zeta"),
			}
			snap := build(t, records(t, lines...))
			r := ask(t, engineWith(), snap, api.SearchRequest{Query: "zeta"})
			for i, res := range r.Results {
				switch res.SourceID {
				case "p":
					if res.TextPreview != preview {
						t.Errorf("preview ends %q, want %q", tail(res.TextPreview), tail(preview))
					}
				case "e":
					want := excerpt + "..."
					if first, _ := utf8.DecodeRuneInString(cluster); unicode.IsLetter(first) {
						// A cluster that begins with a letter goes on
						// with the word "cccccc", and the excerpt ends
						// between words (TestCitation_excerptEndsBetweenWords).
						want = strings.TrimSpace(strings.Repeat(word, 27)) + "..."
					}
					if got := r.CitationPack[i].Excerpt; got != want {
						t.Errorf("excerpt ends %q, want %q", tail(got), tail(want))
					}
				}
			}
		})
	}
}

func tail(s string) string {
	r := []rune(s)
	return string(r[max(0, len(r)-8):])
}

// TestQuality_inflectedTermIsCovered: a key term the result holds in
// another inflection, one the index stems alike (cities and city,
// running and run, ran and run), is covered. Retrieval found the result
// by that stem, and quality called the same term missing and the search
// weak, sending agents to retry a term they had.
func TestQuality_inflectedTermIsCovered(t *testing.T) {
	snap := build(t, records(t,
		`{"id":"a","date":"2026-05-04","text":"We visited the city and read the new policy on the battery."}`,
		`{"id":"b","date":"2026-05-05","text":"Tomas went for a run before work, then hoped for rain."}`,
	))
	for _, tt := range []struct{ query, top string }{
		{"cities policies batteries", "a"},
		{"running", "b"},
		{"runs", "b"},
		{"ran", "b"},
		{"hoping", "b"},
	} {
		r := ask(t, engineWith(), snap, api.SearchRequest{Query: tt.query})
		if len(r.Results) == 0 || r.Results[0].SourceID != tt.top {
			t.Fatalf("%q: results %v, want %s first", tt.query, ids(r), tt.top)
		}
		if q := r.Quality; len(q.MissingTerms) > 0 || q.Status != "strong" {
			t.Errorf("%q: quality %s, missing %q; %s holds them", tt.query, q.Status, q.MissingTerms, tt.top)
		}
	}
	// The stem is the word's, not a prefix's: "runway" is no "run".
	snap = build(t, records(t, `{"id":"c","date":"2026-05-04","text":"The plane taxied along the runway."}`))
	if r := ask(t, engineWith(), snap, api.SearchRequest{Query: "running"}); len(r.Quality.MissingTerms) == 0 && len(r.Results) > 0 {
		t.Errorf("running: covered by %q", r.Results[0].TextPreview)
	}
}

// TestQuality_joinedNameIsCovered: a name the query types joined (utf8,
// gpt4, h264) covers the memory's letters and number with a connector
// between them (UTF-8, GPT-4, H.264), as retrieval already matched it
// (nova-analyzer-v3); quality called the term missing and the search weak.
func TestQuality_joinedNameIsCovered(t *testing.T) {
	snap := build(t, records(t,
		`{"id":"a","date":"2026-05-04","text":"The export writes UTF-8 files; the video pipeline encodes H.264 and summaries come from GPT-4."}`,
		`{"id":"b","date":"2026-05-05","text":"We baked sourdough bread."}`,
	))
	for _, query := range []string{"utf8 export", "h264 pipeline", "gpt4 summaries"} {
		r := ask(t, engineWith(), snap, api.SearchRequest{Query: query})
		if len(r.Results) == 0 || r.Results[0].SourceID != "a" {
			t.Fatalf("%q: results %v, want a first", query, ids(r))
		}
		if q := r.Quality; len(q.MissingTerms) > 0 || q.Status != "strong" {
			t.Errorf("%q: quality %s, missing %q; a holds them", query, q.Status, q.MissingTerms)
		}
	}
	// Only a connector joins: "utf 8" and "utf88" are not utf8.
	snap = build(t, records(t, `{"id":"c","date":"2026-05-04","text":"The table uses utf88 and a utf 8 column."}`))
	if r := ask(t, engineWith(), snap, api.SearchRequest{Query: "utf8"}); len(r.Quality.MissingTerms) == 0 && len(r.Results) > 0 {
		t.Errorf("utf8: covered by %q", r.Results[0].TextPreview)
	}
}

// TestEvents_severityWordsAreWords: the most severe event is judged by
// words of severity, not by letters inside other words. "markdown" and
// "download" held "down", and "majority" "major", so a note about moving
// pages was named the most severe evidence over a failed deploy.
func TestEvents_severityWordsAreWords(t *testing.T) {
	snap := build(t, records(t,
		`{"id":"a","date":"2026-05-04","session":"s1","text":"Docs site deploy: the majority of the markdown pages moved to the download area."}`,
		`{"id":"b","date":"2026-05-05","session":"s2","text":"Docs site deploy failed; the site was unreachable for an hour."}`,
	))
	r := ask(t, engineWith(), snap, api.SearchRequest{Query: "how many times did the docs site deploy"})
	ea := r.EventAggregation
	if ea.MostSevereEvent == nil || !slices.Equal(ea.MostSevereEvent.ResultIDs, []string{"mem:b"}) {
		t.Errorf("most severe event %+v, want the failed deploy (mem:b); summary %q", ea.MostSevereEvent, r.AnswerSynthesis.Summary)
	}
}

// TestSynthesis_chineseOnlyForChinese: the summary is written in Chinese
// for a Chinese query and in English otherwise. Any CJK character made it
// Chinese, so a Korean or Japanese query was answered in Chinese, a
// language its reader may not read.
func TestSynthesis_chineseOnlyForChinese(t *testing.T) {
	snap := build(t, records(t,
		`{"id":"a","date":"2026-05-04","text":"배포 설정 포트 3037 デプロイ設定のポート 3037 部署配置端口 3037"}`,
	))
	for query, zh := range map[string]bool{
		"배포 설정 포트 3037":   false,
		"デプロイ設定のポート 3037": false,
		"部署配置端口 3037":     true,
	} {
		s := ask(t, engineWith(), snap, api.SearchRequest{Query: query}).AnswerSynthesis
		if s.Status != "ready" {
			t.Fatalf("%s: synthesis %s", query, s.Status)
		}
		if got := lexical.HasCJK(s.Summary); got != zh {
			t.Errorf("%s: summary %q, want Chinese %v", query, s.Summary, zh)
		}
	}
}

// TestQuality_phraseAcrossALineBreakIsCovered: a quoted phrase is found
// in text that wraps it onto the next line or spaces it twice, as a
// Markdown paragraph often does. It was reported missing and the search
// weak, though the result held it.
func TestQuality_phraseAcrossALineBreakIsCovered(t *testing.T) {
	snap := build(t, records(t,
		`{"id":"a","date":"2026-05-04","text":"The team agreed that the nightly\nbackup window moves to 02:00 and the  retention policy stays."}`,
	))
	for _, q := range []string{`"nightly backup window"`, `"the retention policy"`} {
		r := ask(t, engineWith(), snap, api.SearchRequest{Query: q})
		if len(r.Results) == 0 {
			t.Fatalf("%s: no result", q)
		}
		if qual := r.Quality; qual.Status != "strong" || len(qual.MissingTerms) > 0 {
			t.Errorf("%s: quality %s, missing %q", q, qual.Status, qual.MissingTerms)
		}
		if c := r.Results[0].ScoreComponents["exactCoverage"]; c != 1 {
			t.Errorf("%s: exactCoverage %v, want 1", q, c)
		}
	}
}

// TestQuality_chineseQuestionWordsAreNoKeyTerms: a Chinese question word
// (什么时候, 几岁, 多久, 哪儿) is no key term. Left in the key terms (时候
// after 什么 was split off, 几岁 and 多久 whole), it was reported missing
// from the memory that answers the question, and the search called weak.
func TestQuality_chineseQuestionWordsAreNoKeyTerms(t *testing.T) {
	snap := build(t, records(t,
		`{"id":"a","date":"2026-05-04","text":"婚礼定在五月三号，在城东的酒店办。"}`,
		`{"id":"b","date":"2026-05-05","text":"李雷的表弟今年七岁了。"}`,
		`{"id":"c","date":"2026-05-06","text":"王芳练钢琴练了三年。"}`,
	))
	for query, top := range map[string]string{
		"婚礼是什么时候？":   "a",
		"婚礼在哪儿办？":    "a",
		"李雷的表弟今年几岁？": "b",
		"王芳练钢琴练了多久？": "c",
	} {
		r := ask(t, engineWith(), snap, api.SearchRequest{Query: query})
		if len(r.Results) == 0 || r.Results[0].SourceID != top {
			t.Fatalf("%s: results %v, want %s first", query, ids(r), top)
		}
		if q := r.Quality; q.Status != "strong" || len(q.MissingTerms) > 0 {
			t.Errorf("%s: quality %s, key terms %q, missing %q", query, q.Status, q.KeyTerms, q.MissingTerms)
		}
	}
}

// TestQuality_englishQuestionWordsAreNoKeyTerms: the words that make an
// English question word ("how old", "how many times", "what day") are no
// key terms: the memory that answers holds an age, a count or a day, not
// them, and they were reported missing from it.
func TestQuality_englishQuestionWordsAreNoKeyTerms(t *testing.T) {
	snap := build(t, records(t,
		`{"id":"a","date":"2026-05-04","text":"Melanie's daughter turned seven in May."}`,
		`{"id":"b","date":"2026-05-05","text":"The deploy failed twice last week."}`,
		`{"id":"c","date":"2026-05-06","text":"The recital is on Saturday at the school hall."}`,
	))
	for query, top := range map[string]string{
		"How old is Melanie's daughter?":      "a",
		"How many times did the deploy fail?": "b",
		"What day is the recital?":            "c",
	} {
		r := ask(t, engineWith(), snap, api.SearchRequest{Query: query})
		if len(r.Results) == 0 || r.Results[0].SourceID != top {
			t.Fatalf("%s: results %v, want %s first", query, ids(r), top)
		}
		if q := r.Quality; q.Status != "strong" || len(q.MissingTerms) > 0 {
			t.Errorf("%s: quality %s, key terms %q, missing %q", query, q.Status, q.KeyTerms, q.MissingTerms)
		}
	}
}

// TestEvents_recordsOfOneFileAreEventsOfTheirOwn: records of one JSONL
// file outside any session are distinct memories, and each is an event.
// They were grouped by their file and day, so three deploys that failed
// on one day were "1 distinct event" to an agent asking how many times.
// A session's turns on one day stay one event.
func TestEvents_recordsOfOneFileAreEventsOfTheirOwn(t *testing.T) {
	snap := build(t, records(t,
		`{"id":"a","date":"2026-05-04","text":"The billing deploy failed at 09:00: migration lock timeout."}`,
		`{"id":"b","date":"2026-05-04","text":"The search deploy failed at 15:00: disk full on the builder."}`,
		`{"id":"c","date":"2026-05-04","text":"The docs deploy failed at 21:00: expired certificate."}`,
		`{"id":"d","date":"2026-05-05","session":"s1","text":"The payments deploy failed: a bad schema."}`,
		`{"id":"e","date":"2026-05-05","session":"s1","text":"The payments deploy failed again after the schema fix."}`,
	))
	r := ask(t, engineWith(), snap, api.SearchRequest{Query: "how many times did a deploy fail"})
	if got := r.EventAggregation.EventCount; got != 4 {
		t.Errorf("%d events, want 4 (three records, one session): %+v", got, r.EventAggregation.Events)
	}
}

// TestQuality_recencyWordsAreNoKeyTerms: the words that ask for the
// present state (currently, 目前, 如今) are no key terms, as today and
// latest were not: the memory of that state seldom says them, and they
// were reported missing from it.
func TestQuality_recencyWordsAreNoKeyTerms(t *testing.T) {
	snap := build(t, records(t,
		`{"id":"a","date":"2026-05-04","text":"novad listens on port 3037 since the config change."}`,
		`{"id":"b","date":"2026-05-05","text":"部署流程改为先在预发环境验证，再发布到生产。"}`,
	))
	for query, top := range map[string]string{
		"Which port does novad listen on currently?": "a",
		"目前的部署流程":                                    "b",
		"如今的部署流程":                                    "b",
	} {
		r := ask(t, engineWith(), snap, api.SearchRequest{Query: query})
		if len(r.Results) == 0 || r.Results[0].SourceID != top {
			t.Fatalf("%s: results %v, want %s first", query, ids(r), top)
		}
		if q := r.Quality; len(q.MissingTerms) > 0 {
			t.Errorf("%s: key terms %q, missing %q", query, q.KeyTerms, q.MissingTerms)
		}
	}
}
