package search_test

import (
	"path/filepath"
	"testing"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
)

// TestSupersession_taskBoardCJKLanes: a board whose lanes are named in
// Chinese (待办 / 进行中 / 已完成 / 阻塞, traditional 進行中), Japanese
// (未着手 / 作業中 / 完了) or Korean (할 일 / 진행 중 / 완료) is read as
// one in English: a card that moves lane is the same card in a newer
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
