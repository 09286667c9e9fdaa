package search_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
)

// TestSupersession_taskBoardCJKLanes: a board whose lanes are named in
// Chinese (待办 / 进行中 / 已完成 / 阻塞, traditional 進行中), Japanese
// (未着手 / 作業中 / 完了) or Korean (할 일 / 진행 중 / 완료), with the
// Kanban plugin's archive lane (封存, アーカイブ, 보관됨), is read as one
// in English: a card that moves lane is the same card in a newer
// state. Before, only English lane names were lanes, the card's lane
// stayed in its key, and the June card was superseded by the July
// board's first section, another card, not by its own newer state.
func TestSupersession_taskBoardCJKLanes(t *testing.T) {
	for _, tc := range []struct {
		name, title, todo, doing, done, blocked, card, other string
		june, july                                           string
		// ids: the slugs of the title, doing, done, blocked and card.
		ids [5]string
	}{
		{"zh", "看板", "待办", "进行中", "已完成", "阻塞", "登录页面", "文档",
			"袋熊登录页面开发了一半。", "袋熊登录页面已上线。", [5]string{"看板", "进行中", "已完成", "阻塞", "登录页面"}},
		{"zh-hant", "看板", "待辦", "進行中（2）", "已完成 ✅", "阻塞", "登入頁面", "文件",
			"袋熊登入頁面開發了一半。", "袋熊登入頁面已上線。", [5]string{"看板", "進行中-2", "已完成", "阻塞", "登入頁面"}},
		{"ja", "ボード", "未着手", "作業中", "完了", "保留", "ログイン画面", "ドキュメント",
			"ウォンバットのログイン画面は作成中。", "ウォンバットのログイン画面は完成した。", [5]string{"ボード", "作業中", "完了", "保留", "ログイン画面"}},
		{"ko", "보드", "할 일", "진행 중", "완료", "보류", "로그인 화면", "문서",
			"웜뱃 로그인 화면 작업 중.", "웜뱃 로그인 화면 작업 완료.", [5]string{"보드", "진행-중", "완료", "보류", "로그인-화면"}},
		// Written in the decomposed form (Hangul as conjoining jamo), as
		// text pasted from a macOS file name or app is.
		{"ko-nfd", nfd("보드"), nfd("할 일"), nfd("진행 중 (2)"), nfd("완료"), nfd("보류"), nfd("로그인 화면"), nfd("문서"),
			nfd("웜뱃 로그인 화면 작업 중."), nfd("웜뱃 로그인 화면 작업 완료."), [5]string{"보드", "진행-중-2", "완료", "보류", "로그인-화면"}},
		// The archive lane of Obsidian's Kanban plugin, as it names it
		// in Obsidian's interface language.
		{"zh-hant-archive", "看板", "待辦", "進行中", "封存", "阻塞", "登入頁面", "文件",
			"袋熊登入頁面開發了一半。", "袋熊登入頁面已封存。", [5]string{"看板", "進行中", "封存", "阻塞", "登入頁面"}},
		{"ja-archive", "ボード", "未着手", "作業中", "アーカイブ", "保留", "ログイン画面", "ドキュメント",
			"ウォンバットのログイン画面は作成中。", "ウォンバットのログイン画面はアーカイブ済み。", [5]string{"ボード", "作業中", "アーカイブ", "保留", "ログイン画面"}},
		{"ko-archive", "보드", "할 일", "진행 중", "보관됨", "보류", "로그인 화면", "문서",
			"웜뱃 로그인 화면 작업 중.", "웜뱃 로그인 화면 보관됨.", [5]string{"보드", "진행-중", "보관됨", "보류", "로그인-화면"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "board-2026-06-01.md"), "---\ndate: 2026-06-01\n---\n# "+tc.title+"\n\n"+
				"## "+tc.todo+"\n\n### "+tc.other+"\n\nNOVA-1.\n\n## "+tc.doing+"\n\n### "+tc.card+"\n\n"+tc.june+"\n\n## "+tc.blocked+"\n\n### API\n\nNOVA-2 waits for review.\n")
			writeFile(t, filepath.Join(dir, "board-2026-07-01.md"), "---\ndate: 2026-07-01\n---\n# "+tc.title+"\n\n"+
				"## "+tc.todo+"\n\n### "+tc.other+"\n\nNOVA-1.\n\n## "+tc.done+"\n\n### "+tc.card+"\n\n"+tc.july+"\n\n### API\n\nNOVA-2 merged.\n")
			snap := newLiveHome(t, config.Source{Name: "board", Kind: config.KindMarkdown, Path: dir, SourceSet: "task-board-snapshot"}).sync(t)
			board, doing, done, blocked, card := tc.ids[0], tc.ids[1], tc.ids[2], tc.ids[3], tc.ids[4]
			june := "board-2026-06-01.md#" + board + "-" + doing + "-" + card
			july := "board-2026-07-01.md#" + board + "-" + done + "-" + card
			wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: tc.june + " " + tc.july, TopK: 10})),
				map[string]string{june: "by board:" + july, july: "current"})
			// The card that moved out of the blocked lane is done, not
			// dropped.
			wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "NOVA-2 waits for review merged", TopK: 10})), map[string]string{
				"board-2026-06-01.md#" + board + "-" + blocked + "-api": "by board:board-2026-07-01.md#" + board + "-" + done + "-api",
			})
		})
	}
}

// TestSupersession_taskBoardCJKDatedSnapshots: the snapshots of a board
// named by a day as Chinese, Japanese and Korean write it (看板
// 2026年6月1日.md, 보드 2026년 6월 1일.md in either Unicode form,
// 2026年6月.md) are one board,
// and a board titled with its day (# 周报 2026年6月1日, # タスク
// 2026/06/01) keeps its cards' chains: the July snapshot supersedes
// June's. Before, the day was a word of the board's name and of its
// title, every snapshot a board of its own, and June's lanes and cards
// were current beside July's.
func TestSupersession_taskBoardCJKDatedSnapshots(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "zh", "看板 2026年6月1日.md"), "## 待办\n\n袋熊围栏修理，草稿。\n\n## 进行中\n\n袋熊洞穴调查。\n")
	writeFile(t, filepath.Join(dir, "zh", "看板 2026年7月1日.md"), "## 待办\n\n袋熊围栏修理，定稿。\n")
	writeFile(t, filepath.Join(dir, "ko", "보드 2026년 6월 1일.md"), "## 할 일\n\n웜뱃 울타리 수리 초안.\n")
	writeFile(t, filepath.Join(dir, "ko", "보드 2026년 7월 1일.md"), "## 할 일\n\n웜뱃 울타리 수리 최종.\n")
	writeFile(t, filepath.Join(dir, "nfd", norm.NFD.String("보드 2026년 6월 1일.md")), "## 할 일\n\n웜뱃 울타리 수리 초안 NFD.\n")
	writeFile(t, filepath.Join(dir, "nfd", norm.NFD.String("보드 2026년 7월 1일.md")), "## 할 일\n\n웜뱃 울타리 수리 최종 NFD.\n")
	writeFile(t, filepath.Join(dir, "month", "2026年6月.md"), "---\n日期: 2026年6月30日\n---\n## 待办\n\n袋熊水槽清洗，草稿。\n")
	writeFile(t, filepath.Join(dir, "month", "2026年7月.md"), "---\n日期: 2026年7月31日\n---\n## 待办\n\n袋熊水槽清洗，定稿。\n")
	writeFile(t, filepath.Join(dir, "titled", "周报-2026年6月1日.md"), "# 周报 2026年6月1日\n\n## 进行中\n\n### NOVA-31 搜索延迟\n\n袋熊搜索延迟：阻塞，等待基准测试。\n\n## 2026年5月30日\n\n袋熊搜索延迟当天的日志。\n")
	writeFile(t, filepath.Join(dir, "titled", "周报-2026年7月1日.md"), "# 周报 2026年7月1日\n\n## 待办\n\n### NOVA-9 文档\n\n袋熊文档。\n\n## 已完成\n\n### NOVA-31 搜索延迟\n\n袋熊搜索延迟：已完成，v0.4 发布。\n")
	writeFile(t, filepath.Join(dir, "ja", "タスク 2026-06-01.md"), "---\ndate: 2026-06-01\n---\n# タスク 2026/06/01\n\n## 作業中\n\n### NOVA-32 検索速度\n\nウォンバット検索速度：保留。\n")
	writeFile(t, filepath.Join(dir, "ja", "タスク 2026-07-01.md"), "---\ndate: 2026-07-01\n---\n# タスク 2026/07/01\n\n## 未着手\n\n### NOVA-9 文書\n\nウォンバット文書。\n\n## 完了\n\n### NOVA-32 検索速度\n\nウォンバット検索速度：完了。\n")
	snap := newLiveHome(t, config.Source{Name: "board", Kind: config.KindMarkdown, Path: dir, SourceSet: "task-board-snapshot"}).sync(t)
	wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "ウォンバット検索速度", TopK: 20})), map[string]string{
		"ja/タスク 2026-06-01.md#タスク-2026-06-01-作業中-nova-32-検索速度": "by board:ja/タスク 2026-07-01.md#タスク-2026-07-01-完了-nova-32-検索速度",
	})
	wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "袋熊围栏修理 袋熊洞穴调查 袋熊水槽清洗", TopK: 20})), map[string]string{
		"zh/看板 2026年6月1日.md#待办":  "by board:zh/看板 2026年7月1日.md#待办",
		"zh/看板 2026年6月1日.md#进行中": "by board:zh/看板 2026年7月1日.md#待办",
		"zh/看板 2026年7月1日.md#待办":  "current",
		"month/2026年6月.md#待办":    "by board:month/2026年7月.md#待办",
		"month/2026年7月.md#待办":    "current",
	})
	wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "웜뱃 울타리 수리", TopK: 20})), map[string]string{
		"ko/보드 2026년 6월 1일.md#할-일": "by board:ko/보드 2026년 7월 1일.md#할-일",
		"ko/보드 2026년 7월 1일.md#할-일": "current",
		// Named as macOS names a file, decomposed.
		"nfd/" + norm.NFD.String("보드 2026년 6월 1일.md") + "#할-일": "by board:nfd/" + norm.NFD.String("보드 2026년 7월 1일.md") + "#할-일",
	})
	june, july := "titled/周报-2026年6月1日.md#周报-2026年6月1日-进行中-nova-31-搜索延迟", "titled/周报-2026年7月1日.md#周报-2026年7月1日-已完成-nova-31-搜索延迟"
	wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "袋熊搜索延迟 NOVA-31", TopK: 20})), map[string]string{
		june: "by board:" + july,
		july: "current",
		// A section a heading dates is of its day, not a state of the
		// board that a later snapshot ends.
		"titled/周报-2026年6月1日.md#周报-2026年6月1日-2026年5月30日": "current",
	})
}

// TestSupersession_taskBoardCJKArchiveFolder: a folder of a board's
// older snapshots named in Chinese (归档, 历史), Japanese (アーカイブ)
// or Korean (보관) is its parent's, as archive/ is: its snapshots chain
// with the board beside it, its name in either Unicode form. Before, the folder was another board's and
// its lanes were current beside the board's.
func TestSupersession_taskBoardCJKArchiveFolder(t *testing.T) {
	dir := t.TempDir()
	// The last is 보관 as macOS names a folder, decomposed.
	folders := []string{"归档", "歷史", "アーカイブ", "보관", norm.NFD.String("보관")}
	for i, folder := range folders {
		board := filepath.Join(dir, "p"+string(rune('a'+i)))
		writeFile(t, filepath.Join(board, "看板.md"), "---\ndate: 2026-07-01\n---\n## 待办\n\n鸭嘴兽小部件样式，定稿 "+folder+"。\n")
		writeFile(t, filepath.Join(board, folder, "看板 2026年1月1日.md"), "---\ndate: 2026-01-01\n---\n## 待办\n\n鸭嘴兽小部件样式，草稿 "+folder+"。\n")
	}
	snap := newLiveHome(t, config.Source{Name: "board", Kind: config.KindMarkdown, Path: dir, SourceSet: "task-board-snapshot"}).sync(t)
	want := map[string]string{}
	for i, folder := range folders {
		p := "p" + string(rune('a'+i))
		want[p+"/看板.md#待办"] = "current"
		want[p+"/"+folder+"/看板 2026年1月1日.md#待办"] = "by board:" + p + "/看板.md#待办"
	}
	wantFlags(t, versionFlags(ask(t, engineWith(), snap, api.SearchRequest{Query: "鸭嘴兽小部件样式", TopK: 20})), want)
}

// nfd is s in the decomposed form macOS gives a file name.
func nfd(s string) string { return norm.NFD.String(s) }
