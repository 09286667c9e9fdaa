package ingest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/config"
)

// noteDate is the date of the one record a note named name (a path in
// a fresh folder, last written on 2023-01-02) gives.
func noteDate(t *testing.T, name, note string) string {
	t.Helper()
	dir := writeTree(t, map[string]string{name: note})
	mtime := time.Date(2023, 1, 2, 12, 0, 0, 0, time.Local)
	if err := os.Chtimes(filepath.Join(dir, name), mtime, mtime); err != nil {
		t.Fatal(err)
	}
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(recs) != 1 || len(problems) != 0 {
		t.Fatalf("%d records, problems %v", len(recs), problems)
	}
	return recs[0].Date
}

// TestRead_fileNameDayForms: a daily note named as the notes apps let
// their users name them is of its day: dotted (Dendron's
// daily.journal.2026.03.05, a YYYY.MM.DD format), with the month's name
// ("Thursday, March 5, 2026", "5 March 2026", "March 5th, 2026": moment
// formats of Obsidian's daily notes, Bear and Day One exports), the day
// first or the month first where the day (> 12) tells which
// (25.03.2026, 03-25-2026). They were of their modification time, the
// day a sync or a copy touched them. A day the digits do not tell
// (05-03-2026: 5 March or May 3?), a version (v2026.03.05, 2026.1.5,
// 2026.03.05.1) and a month without its day are no day.
func TestRead_fileNameDayForms(t *testing.T) {
	for name, want := range map[string]string{
		"2026.03.05.md":                       "2026-03-05",
		"journal/daily.journal.2026.03.05.md": "2026-03-05",
		"Thursday, March 5, 2026.md":          "2026-03-05",
		"5 March 2026.md":                     "2026-03-05",
		"March 5th, 2026.md":                  "2026-03-05",
		"Mar 5, 2026 standup.md":              "2026-03-05",
		"Thu, 05 Mar 2026.md":                 "2026-03-05",
		"1st September 2026.md":               "2026-09-01",
		"25.03.2026.md":                       "2026-03-25",
		"25-03-2026 retro.md":                 "2026-03-25",
		"03-25-2026.md":                       "2026-03-25",
		"05-03-2026.md":                       "2023-01-02",
		"05.03.2026.md":                       "2023-01-02",
		"v2026.03.05.md":                      "2023-01-02",
		"nova 2026.1.5 release.md":            "2023-01-02",
		"2026.03.05.1.md":                     "2023-01-02",
		"March 2026 budget.md":                "2023-01-02",
		"May 32, 2026.md":                     "2023-01-02",
		"31.02.2026.md":                       "2023-01-02",
		"Maybe 5 2026.md":                     "2023-01-02",
		"1.25.2026.4.md":                      "2023-01-02",
		"Retro 5 March 2026.md":               "2026-03-05",
		"Thursday, March 5, 2026 (call).md":   "2026-03-05",
		"Top 10 March 2026 ideas.md":          "2023-01-02",
		"Notes on the 5 March 2026 outage.md": "2023-01-02",
	} {
		t.Run(name, func(t *testing.T) {
			if got := noteDate(t, name, "- The port moved to 3037.\n"); got != want {
				t.Errorf("dated %s, want %s", got, want)
			}
		})
	}
}

// TestRead_frontMatterFullWidthColon: front matter typed with a Chinese
// or Japanese input method, whose colon is the full-width "："
// (date：2026-03-05), is read as the front matter it is meant to be, a
// line of it among ASCII ones too. The block was the note's text (all
// its lines so) and the note of its modification time, or not valid
// YAML (one line so): the whole front matter left out with a problem.
// A block between two "---" that names no front matter field is the
// note's text, as before.
func TestRead_frontMatterFullWidthColon(t *testing.T) {
	tests := map[string]struct{ note, date, text string }{
		"every line": {"---\ndate：2026-03-05\n标题：迁移计划\n---\n把端口改成 8443。\n", "2026-03-05", "把端口改成 8443。"},
		"one line":   {"---\ntitle: 迁移\ndate： 2026-03-05 09:30\ntags: [ops]\n---\n把端口改成 8443。\n", "2026-03-05", "把端口改成 8443。"},
		"CJK key":    {"---\n日付：2026年3月5日\n---\nポートを 8443 に変更。\n", "2026-03-05", "ポートを 8443 に変更。"},
		"no field":   {"---\n注意：明天发布\n\n---\n正文\n", "2023-01-02", "---\n注意：明天发布\n\n---\n正文"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			recs := noteRecords(t, "note.md", tt.note)
			if len(recs) != 1 {
				t.Fatalf("%d records", len(recs))
			}
			if got := noteDate(t, "note.md", tt.note); got != tt.date || recs[0].Text != tt.text {
				t.Errorf("dated %s, text %q; want %s, %q", got, recs[0].Text, tt.date, tt.text)
			}
		})
	}
}

// TestRead_periodicNoteNames: a week note named as Obsidian's Periodic
// Notes names it (2026-W10, ISO 8601's week) is of its week's Monday, a
// day of a week (2026-W10-4) of that day, and a month note (a name that
// is only 2026-03) of the month's first day, a quarter note (2026-Q1,
// 2026Q1, 2026 Q1) of the quarter's, so that a search of the week, the
// month or the quarter, whose span holds that day, finds it. They were of
// their modification time. A week the year has not (2025 has 52) and a
// month that is none are no day, and a name with more than the month
// (2026-03 budget, which may be a count or a code) is not read.
func TestRead_periodicNoteNames(t *testing.T) {
	for name, want := range map[string]string{
		"2026-W10.md":           "2026-03-02",
		"weekly/2026-W01.md":    "2025-12-29",
		"2026-W10-4.md":         "2026-03-05",
		"2026-W53.md":           "2026-12-28",
		"2026-W10 review.md":    "2026-03-02",
		"2025-W53.md":           "2023-01-02",
		"2026-W00.md":           "2023-01-02",
		"2026-W10-8.md":         "2023-01-02",
		"v2026-W10.md":          "2023-01-02",
		"monthly/2026-03.md":    "2026-03-01",
		"2026-13.md":            "2023-01-02",
		"2026-03 budget.md":     "2023-01-02",
		"rfc-2026-03.md":        "2023-01-02",
		"2026-03-W10-report.md": "2023-01-02",
		"quarterly/2026-Q1.md":  "2026-01-01",
		"2026-Q3.md":            "2026-07-01",
		"2026Q4.md":             "2026-10-01",
		"2026 Q2.md":            "2026-04-01",
		"2026-Q5.md":            "2023-01-02",
		"2026-Q1 okrs.md":       "2023-01-02",
	} {
		t.Run(name, func(t *testing.T) {
			if got := noteDate(t, name, "- The port moved to 3037.\n"); got != want {
				t.Errorf("dated %s, want %s", got, want)
			}
		})
	}
}

// TestRead_folderDay: a daily note filed under its year and month and
// named by its day (journals/2026/03/05.md, as jrnl, Hugo and journals
// kept by hand file them) is of that day. It was of its modification
// time. A folder that is no year or no month, or a name that is no day
// of it, gives no day.
func TestRead_folderDay(t *testing.T) {
	for name, want := range map[string]string{
		"journals/2026/03/05.md":    "2026-03-05",
		"2026/03/5.md":              "2026-03-05",
		"2026/03/05-deploy.md":      "2026-03-05",
		"2026/03/notes.md":          "2023-01-02",
		"2026/13/05.md":             "2023-01-02",
		"2026/02/30.md":             "2023-01-02",
		"v2026/03/05.md":            "2023-01-02",
		"projects/2026/05.md":       "2023-01-02",
		"2026/03/0512.md":           "2023-01-02",
		"2026/03/2026-03-07 Sat.md": "2026-03-07",
	} {
		t.Run(name, func(t *testing.T) {
			if got := noteDate(t, name, "- The port moved to 3037.\n"); got != want {
				t.Errorf("dated %s, want %s", got, want)
			}
		})
	}
}

// TestRead_frontMatterCJKTitle: the title front matter gives under its
// Chinese, Japanese or Korean key (标题, 標題, タイトル, 제목), with
// either colon, is the note's title, as "title" is. The note was
// titled by its file name.
func TestRead_frontMatterCJKTitle(t *testing.T) {
	for _, note := range []string{
		"---\n标题：迁移计划\ndate：2026-03-05\n---\n把端口改成 8443。\n",
		"---\n標題: 迁移计划\n---\n把端口改成 8443。\n",
		"---\nタイトル：迁移计划\n---\n把端口改成 8443。\n",
		"---\n제목: 迁移计划\n---\n把端口改成 8443。\n",
	} {
		recs := noteRecords(t, "note-1.md", note)
		if len(recs) != 1 || recs[0].Title != "迁移计划" {
			t.Errorf("%q: records %v, want one titled 迁移计划", note, recs)
		}
	}
}

// TestRead_fileNameLocalMonths: a daily note named with its month's name
// in the language Obsidian or the exporting app runs in ("Donnerstag,
// 5. März 2026", "jeudi 5 mars 2026", "5 de marzo de 2026") is of its
// day, its name composed or decomposed (macOS). It was of its
// modification time. A month without its day is no day.
func TestRead_fileNameLocalMonths(t *testing.T) {
	for name, want := range map[string]string{
		"05. März 2026.md":            "2026-03-05",
		"Donnerstag, 5. März 2026.md": "2026-03-05",
		"05. Ma\u0308rz 2026.md":      "2026-03-05",
		"jeudi 5 mars 2026.md":        "2026-03-05",
		"1er août 2026.md":            "2026-08-01",
		"5 de marzo de 2026.md":       "2026-03-05",
		"5 de março de 2026.md":       "2026-03-05",
		"5 maart 2026.md":             "2026-03-05",
		"5 marzo 2026.md":             "2026-03-05",
		"12. Dezember 2026 Review.md": "2026-12-12",
		"Mars 2026 mission.md":        "2023-01-02",
		"5 Marsupial 2026.md":         "2023-01-02",
	} {
		t.Run(name, func(t *testing.T) {
			if got := noteDate(t, name, "- The port moved to 3037.\n"); got != want {
				t.Errorf("dated %s, want %s", got, want)
			}
		})
	}
}

// TestRead_frontMatterDayForms: a front matter date written as a date
// template writes it with the month's name (Obsidian's {{date:MMMM D,
// YYYY}}: "March 5, 2026"; a Logseq page property, [[Mar 5th, 2026]]),
// dotted (2026.03.05) or the day first where the day tells (25.03.2026)
// is the note's day. The note was of its
// file's name or modification time. A day the digits do not tell
// (05.03.2026) dates nothing; the next field does.
func TestRead_frontMatterDayForms(t *testing.T) {
	for note, want := range map[string]string{
		"---\ndate: March 5, 2026\n---\nx\n":                   "2026-03-05",
		"---\ncreated: Thursday, 5 March 2026\n---\nx\n":       "2026-03-05",
		"---\ndate: 5. März 2026\n---\nx\n":                    "2026-03-05",
		"date:: [[Mar 5th, 2026]]\n- x\n":                      "2026-03-05",
		"---\ndate: 2026.03.05\n---\nx\n":                      "2026-03-05",
		"---\ndate: 25.03.2026\n---\nx\n":                      "2026-03-25",
		"---\ndate: 05.03.2026\nupdated: 2026-04-01\n---\nx\n": "2026-04-01",
		"---\ndate: 05.03.2026\n---\nx\n":                      "2023-01-02",
		"---\ndate: Release 2026.1.5\n---\nx\n":                "2023-01-02",
	} {
		if got := noteDate(t, "note.md", note); got != want {
			t.Errorf("%q: dated %s, want %s", note, got, want)
		}
	}
}
