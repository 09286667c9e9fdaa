package ingest

import (
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/nova-recall/nova/memory"
)

// laneNames are the states a task board's lanes are named after, as
// GitHub projects, Trello, Jira and Obsidian's Kanban plugin name them,
// in English and in Chinese, Japanese and Korean (letters only, lower
// case, as laneKey reads a heading: "【进行中】（3）" is 进行中).
var laneNames = setOf(
	"backlog", "icebox", "inbox", "triage", "ideas", "someday", "later", "next", "up next", "next up", "now",
	"todo", "to do", "open", "ready", "planned", "selected", "this week", "this sprint",
	"doing", "in progress", "wip", "work in progress", "active", "ongoing", "started", "current",
	"review", "in review", "code review", "qa", "testing", "in testing", "verify",
	"blocked", "on hold", "waiting", "paused",
	"done", "complete", "completed", "finished", "shipped", "released", "closed", "archive", "archived",
	"cancelled", "canceled", "dropped", "won t do", "wont do",
	// Chinese, simplified and traditional: 待办 / 进行中 / 已完成 / 阻塞,
	// and the archive lane Obsidian's Kanban plugin names in each
	// language (归档, 封存, アーカイブ, 보관됨).
	"待办", "待辦", "待办事项", "待辦事項", "待处理", "待處理", "未开始", "未開始", "计划中", "計劃中", "想法", "本周", "本週",
	"进行中", "進行中", "处理中", "處理中", "开发中", "開發中", "正在进行", "正在進行",
	"待测试", "待測試", "测试中", "測試中", "审核中", "審核中", "评审中", "評審中", "待审核", "待審核",
	"阻塞", "受阻", "暂停", "暫停", "搁置", "擱置", "等待", "等待中",
	"已完成", "完成", "已上线", "已上線", "已发布", "已發布", "已关闭", "已關閉", "归档", "歸檔", "已归档", "已歸檔",
	"已取消", "取消", "放弃", "放棄", "封存",
	// Japanese: 未着手 / 作業中 / 完了 (進行中 as in Chinese, ToDo as in
	// English).
	"未着手", "未対応", "やること", "予定", "作業中", "対応中", "実施中", "レビュー中", "確認中", "テスト中",
	"保留", "保留中", "待ち", "ブロック", "完了", "対応済み", "済み", "中止", "アーカイブ",
	// Korean: 할 일 / 진행 중 / 완료.
	"할 일", "할일", "예정", "대기", "대기 중", "대기중", "진행 중", "진행중", "작업 중", "작업중",
	"검토", "검토 중", "검토중", "보류", "차단", "차단됨", "완료", "완료됨", "취소", "취소됨", "보관", "보관됨",
)

// laneKey returns the state a heading names when it is a task board's
// lane ("in progress" for "🚧 In Progress (3)": the count and the marks
// change from one snapshot to the next, the lane does not), or "". A
// lane with a date ("Shipped 2026-05-01") is one of many of its name,
// told apart by the date, and is read as any heading.
func laneKey(h string) string {
	// Composed first: a lane written in decomposed Hangul (완료 as jamo,
	// as text pasted from a macOS file name is) names its state too.
	h = norm.NFC.String(h)
	if headingDate().MatchString(h) {
		return ""
	}
	words := strings.FieldsFunc(strings.ToLower(h), func(r rune) bool { return !unicode.IsLetter(r) })
	k := strings.Join(words, " ")
	if !laneNames[k] {
		return ""
	}
	return k
}

// boardSubjects returns the version-chain keys of the sections of one
// task-board snapshot, given their heading paths ("" for a section
// without headings).
//
// A card's key is its heading path less the lanes above it: a card that
// moves lane ("## In progress" > "### NOVA-40" becoming "## Done" >
// "### NOVA-40") is the same card in a newer state, the lane being that
// state. A card title that more than one lane of the snapshot holds
// ("Docs" in progress and done) names as many cards: those keep their
// lanes, keyed by laneKey, so that none is taken for another. A heading
// path that still repeats names another section of the same state:
// numbered, as its id is, it pairs with its counterpart on the next
// snapshot.
//
// A section whose path does not open with a title (a level-1 heading,
// titled[i]) has its key begin with memory.UntitledCard: "## Todo" of frontend.md and
// of backend.md name no board, and the index chains such a section
// only within its own board (its file, its dated copies).
func boardSubjects(paths [][]string, titled []bool) []string {
	keys := make([][]string, len(paths))
	cards := make([]string, len(paths))
	count := map[string]int{}
	for i, p := range paths {
		if len(p) == 0 {
			continue
		}
		keys[i] = snapshotKey(p)
		var card []string
		for j, k := range keys[i] {
			if j == len(p)-1 || laneKey(p[j]) == "" {
				card = append(card, k)
			}
		}
		if len(card) < len(p) {
			cards[i] = "heading:" + strings.Join(card, " > ")
			count[cards[i]]++
		}
	}
	out := make([]string, len(paths))
	used := map[string]int{}
	for i, p := range paths {
		if len(p) == 0 {
			continue
		}
		s := cards[i]
		if s == "" || count[s] > 1 {
			s = "heading:" + strings.Join(keys[i], " > ")
		}
		used[s]++
		if n := used[s]; n > 1 {
			s = fmt.Sprintf("%s~%d", s, n)
		}
		if !titled[i] {
			s = memory.UntitledCard + s
		}
		out[i] = s
	}
	return out
}
