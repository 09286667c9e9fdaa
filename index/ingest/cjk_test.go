package ingest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// TestRead_cjkDates: a note dated as Chinese, Japanese and Korean write
// a day (2026年6月1日, 2026년 6월 1일, 2026/06/01), in its file's name or
// in its front matter, under a Chinese, Japanese or Korean key (日期,
// 创建时间, 作成日, 생성일), with its weekday or without, is of that
// day, a time with it read in the reader's zone; a section under a
// heading that is such a day (or 2026/06/01, as Japanese logs title a
// day) is of it. Before, all these notes were of their file's
// modification time: a daily note 2026年6月1日.md copied to a new
// machine was of the day of the copy. A day without a year (6月1日.md)
// is no day.
func TestRead_cjkDates(t *testing.T) {
	jst := time.FixedZone("JST", 9*3600)
	tests := []struct {
		name, note, date string
		// at is the time read, in JST; zero for a day alone.
		at time.Time
	}{
		{"2026年6月1日.md", "- 端口改为 3037。\n", "2026-06-01", time.Time{}},
		{"2026年06月01日 周报.md", "- 端口改为 3037。\n", "2026-06-01", time.Time{}},
		{"周报 2026年6月8日.md", "- 端口改为 3037。\n", "2026-06-08", time.Time{}},
		{"2026년 6월 1일.md", "- 포트 3037.\n", "2026-06-01", time.Time{}},
		// As macOS names a file, decomposed.
		{norm.NFD.String("회의 2026년 6월 2일.md"), "- 포트 3037.\n", "2026-06-02", time.Time{}},
		{"2026年2月30日.md", "- 不是日期。\n", "2023-01-02", time.Time{}},
		{"6月1日.md", "- 没有年份。\n", "2023-01-02", time.Time{}},
		{"fm-zh.md", "---\n日期: 2026年6月1日\n---\n- 端口。\n", "2026-06-01", time.Time{}},
		{"fm-zh-time.md", "---\n创建时间: 2026年6月1日 10:30\n---\n- 端口。\n", "2026-06-01", time.Date(2026, 6, 1, 10, 30, 0, 0, jst)},
		{"fm-zh-iso.md", "---\n创建时间: 2026-06-01 23:30:00\n---\n- 端口。\n", "2026-06-01", time.Date(2026, 6, 1, 23, 30, 0, 0, jst)},
		{"fm-zh-hant.md", "---\n建立時間: 2026/06/01 08:00\n---\n- 連接埠。\n", "2026-06-01", time.Date(2026, 6, 1, 8, 0, 0, 0, jst)},
		{"fm-date.md", "---\ndate: 2026年6月1日\n---\n- 端口。\n", "2026-06-01", time.Time{}},
		{"fm-slash.md", "---\ndate: 2026/6/1\n---\n- ポート。\n", "2026-06-01", time.Time{}},
		{"fm-ja.md", "---\n作成日: 2026/06/01\n更新日: 2026/07/01\n---\n- ポート。\n", "2026-06-01", time.Time{}},
		{"fm-ja-updated.md", "---\n更新日時: 2026年7月1日 9:05\n---\n- ポート。\n", "2026-07-01", time.Date(2026, 7, 1, 9, 5, 0, 0, jst)},
		{"log.md", "# 日志\n\n## 2022年12月30日\n\n端口改为 3037。\n", "2022-12-30", time.Time{}},
		{"log-ja.md", "# 日誌\n\n## 2022/12/30（金）\n\nポート 3037。\n", "2022-12-30", time.Time{}},
		// As date templates write a day with its weekday.
		{"fm-zh-weekday.md", "---\n创建时间: 2026年06月01日 星期一 10:30\n---\n- 端口。\n", "2026-06-01", time.Date(2026, 6, 1, 10, 30, 0, 0, jst)},
		{"fm-ja-weekday.md", "---\ncreated: 2026/06/01(月)\n---\n- ポート。\n", "2026-06-01", time.Time{}},
		{"fm-ja-weekday-long.md", "---\ncreated: 2026年6月1日 月曜日\n---\n- ポート。\n", "2026-06-01", time.Time{}},
		{"fm-ko-weekday.md", "---\n생성일: 2026년 6월 1일 월요일 09:05\n---\n- 포트.\n", "2026-06-01", time.Date(2026, 6, 1, 9, 5, 0, 0, jst)},
		{"fm-ko.md", "---\n생성일: 2026년 6월 1일\n---\n- 포트.\n", "2026-06-01", time.Time{}},
		// Decomposed, as text pasted from a macOS file name or app is: the
		// key, and the day and time after it.
		{"fm-ko-nfd.md", norm.NFD.String("---\n생성일: 2026년 6월 1일 월요일 09:05\n---\n- 포트.\n"), "2026-06-01", time.Date(2026, 6, 1, 9, 5, 0, 0, jst)},
		{"fm-ko-nfd-key.md", norm.NFD.String("---\n날짜: ") + "2026-06-01\n---\n- 포트.\n", "2026-06-01", time.Time{}},
		{"fm-ja-nfd.md", norm.NFD.String("---\n作成日: 2026年6月1日\n---\n- データベース。\n"), "2026-06-01", time.Time{}},
		{"log-ko-nfd.md", norm.NFD.String("# 일지\n\n## 2022년 12월 30일\n\n포트 3037.\n"), "2022-12-30", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{tt.name: tt.note})
			p := filepath.Join(dir, tt.name)
			mtime := time.Date(2023, 1, 2, 12, 0, 0, 0, jst)
			if err := os.Chtimes(p, mtime, mtime); err != nil {
				t.Fatal(err)
			}
			var recs []memory.Record
			fc := &fileCtx{ctx: context.Background(), src: config.Source{Name: "notes", Kind: config.KindMarkdown}, path: p, rel: tt.name,
				sink: Sink{Record: func(r memory.Record) error { recs = append(recs, r); return nil }, Problem: func(p Problem) { t.Error(p) }}, loc: jst}
			if err := readMarkdown(fc); err != nil {
				t.Fatal(err)
			}
			if len(recs) != 1 || recs[0].Date != tt.date {
				t.Fatalf("records %+v; want one dated %s", recs, tt.date)
			}
			if !recs[0].Time.Equal(tt.at) {
				t.Errorf("time %v, want %v", recs[0].Time, tt.at)
			}
		})
	}
}

// TestRead_cjkTags: tags in a Chinese or Japanese note are its tags as
// they are written with a CJK input method: a front matter list of tags
// parted by full-width or ideographic commas (工作，项目/前端、周报) and
// an inline #tag after an ideographic space (U+3000, what the space bar
// types in full-width mode). Before, the front matter's were one tag
// "工作，项目/前端、周报" and the inline tag none.
func TestRead_cjkTags(t *testing.T) {
	recs := noteRecords(t, "周报.md", "---\ntags: 工作，项目/前端、周报\n---\n# 周报\n\n今天完成了登录页面。\u3000#全角空格 然后 #工作。\n")
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	if want := []string{"工作", "项目/前端", "周报", "全角空格"}; !slices.Equal(recs[0].Tags, want) {
		t.Errorf("tags %q, want %q", recs[0].Tags, want)
	}
}

// TestRead_tagsWithMarks: an inline #tag is all its letters, a letter's
// combining marks among them: an accent or a kana voiced mark written
// decomposed (#café, #ガラス as text pasted from a macOS file name is),
// and the vowel signs Hindi and Thai write with combining marks even
// composed (#हिंदी, #ที่ทำงาน). Before, the tag ended at the first mark:
// #cafe, #カ, #ह, #ท.
func TestRead_tagsWithMarks(t *testing.T) {
	recs := noteRecords(t, "tags.md", "# Notes\n\n"+norm.NFD.String("Lunch at the #café, then the #ガラス workshop.")+" Also #हिंदी and #ที่ทำงาน.\n")
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	if want := []string{norm.NFD.String("café"), norm.NFD.String("ガラス"), "हिंदी", "ที่ทำงาน"}; !slices.Equal(recs[0].Tags, want) {
		t.Errorf("tags %q, want %q", recs[0].Tags, want)
	}
}

// TestRead_obsidianKanbanCJKMarkers: Obsidian's Kanban plugin writes its
// "**Complete**" line in the language of Obsidian's interface:
// "**完成**" in Chinese, "**完了**" in Japanese, "**완료됨**" in Korean.
// It is no card's words in any of them. Before, only the English line
// was dropped, and every done lane of a Chinese board read "完成".
func TestRead_obsidianKanbanCJKMarkers(t *testing.T) {
	for _, tc := range []struct{ lane, marker, archive string }{
		{"已完成", "完成", "归档"},
		{"已完成", "完成", "封存"},
		{"完了", "完了", "アーカイブ"},
		{"완료", "완료됨", "보관됨"},
	} {
		board := "---\n\nkanban-plugin: basic\n\n---\n\n## " + tc.lane + "\n\n**" + tc.marker + "**\n- [x] 卡片二\n\n\n***\n\n## " + tc.archive + "\n\n- [x] 旧卡片\n"
		want := []string{tc.lane + ": - [x] 卡片二", tc.archive + ": - [x] 旧卡片"}
		if got := noteSections(t, "看板.md", board); !slices.Equal(got, want) {
			t.Errorf("sections %q, want %q", got, want)
		}
	}
}
