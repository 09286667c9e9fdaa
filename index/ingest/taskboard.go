package ingest

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/nova-recall/nova/memory"
)

// laneNames are the states a task board's lanes are named after, as
// GitHub projects, Trello, Jira and Obsidian's Kanban plugin name them
// (letters only, lower case, as laneKey reads a heading).
var laneNames = setOf(
	"backlog", "icebox", "inbox", "triage", "ideas", "someday", "later", "next", "up next", "next up", "now",
	"todo", "to do", "open", "ready", "planned", "selected", "this week", "this sprint",
	"doing", "in progress", "wip", "work in progress", "active", "ongoing", "started", "current",
	"review", "in review", "code review", "qa", "testing", "in testing", "verify",
	"blocked", "on hold", "waiting", "paused",
	"done", "complete", "completed", "finished", "shipped", "released", "closed", "archive", "archived",
	"cancelled", "canceled", "dropped", "won t do", "wont do",
)

// laneKey returns the state a heading names when it is a task board's
// lane ("in progress" for "🚧 In Progress (3)": the count and the marks
// change from one snapshot to the next, the lane does not), or "". A
// lane with a date ("Shipped 2026-05-01") is one of many of its name,
// told apart by the date, and is read as any heading.
func laneKey(h string) string {
	if headingDate.MatchString(h) {
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
