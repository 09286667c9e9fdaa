package ingest

import (
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
)

// obsidianCanvas is a canvas as Obsidian writes one (JSON Canvas 1.0: tabs,
// one node per line, groups first as the lowest in z-order): two text
// cards in a labelled group, one card outside it, a card that embeds a
// note, a link and an arrow with a label.
const obsidianCanvas = `{
	"nodes":[
		{"id":"g1","type":"group","x":-40,"y":-40,"width":900,"height":500,"label":"Launch risks"},
		{"id":"5a1f0c2e9b7d4e31","type":"text","text":"## Vendor\nThe payment vendor's contract may slip past **March**. See [[Contracts|the contracts note]] #risk","x":400,"y":0,"width":300,"height":200},
		{"id":"9c0e7b1a2d3f4a55","type":"text","text":"Staging runs out of disk every Friday.","x":0,"y":0,"width":300,"height":200},
		{"id":"e2","type":"text","text":"Ship the beta to ten users first.","x":0,"y":700,"width":300,"height":120},
		{"id":"f1","type":"file","file":"Contracts.md","x":1000,"y":0,"width":400,"height":400},
		{"id":"l1","type":"link","url":"https://example.com","x":1000,"y":500,"width":400,"height":400},
		{"id":"e3","type":"text","text":"   ","x":0,"y":900,"width":10,"height":10}
	],
	"edges":[
		{"id":"a1","fromNode":"9c0e7b1a2d3f4a55","fromSide":"right","toNode":"5a1f0c2e9b7d4e31","toSide":"left","label":"blocks"}
	]
}`

// TestRead_obsidianCanvas: the cards of an Obsidian canvas are notes.
// Before, a vault's .canvas files were not read at all, so what a user
// wrote on a canvas was never recalled. Each text card is one memory, in
// reading order (top to bottom, then left to right), titled with the
// canvas's name and the group it sits in, cited by the line that holds
// it; its Markdown reads as a note's does, and its arrow's label joins
// both cards (TestRead_canvasRelations). File, link and group nodes hold
// no text of their own.
func TestRead_obsidianCanvas(t *testing.T) {
	dir := writeTree(t, map[string]string{"Plans/Launch board.canvas": obsidianCanvas})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	type got struct{ id, title, text string }
	var all []got
	for _, r := range recs {
		all = append(all, got{r.ID, r.Title, r.Text})
	}
	want := []got{
		{"Plans/Launch board.canvas#9c0e7b1a2d3f4a55", "Launch board > Launch risks", "Staging runs out of disk every Friday.\n→ blocks: Vendor"},
		{"Plans/Launch board.canvas#5a1f0c2e9b7d4e31", "Launch board > Launch risks", "Vendor\nThe payment vendor's contract may slip past **March**. See the contracts note #risk\n← blocks: Staging runs out of disk every Friday."},
		{"Plans/Launch board.canvas#e2", "Launch board", "Ship the beta to ten users first."},
	}
	if !slices.Equal(all, want) {
		t.Fatalf("records:\n%q\nwant\n%q", all, want)
	}
	for _, r := range recs {
		if r.Kind != config.KindMarkdown || r.Layer != "note" || r.Date == "" {
			t.Errorf("%s: kind %q layer %q date %q", r.ID, r.Kind, r.Layer, r.Date)
		}
	}
	if recs[1].Line != 4 || recs[0].Line != 5 || recs[2].Line != 6 {
		t.Errorf("lines %d, %d, %d; want 5, 4, 6 (the line of each card)", recs[0].Line, recs[1].Line, recs[2].Line)
	}
	if !slices.Contains(recs[1].Tags, "risk") {
		t.Errorf("tags %q: the card's #risk tags it", recs[1].Tags)
	}
}

// TestRead_canvasProblems: a canvas that is not JSON Canvas is reported by
// path and skipped, never read as text; a secret on a card is redacted as
// in a note.
func TestRead_canvasProblems(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"broken.canvas": `{"nodes":[{"id":"a","type":"text","text":"half`,
		"list.canvas":   `[1, 2]`,
		"empty.canvas":  `{}`,
		"keys.canvas":   `{"nodes":[{"id":"k","type":"text","text":"deploy token ghp_0123456789abcdefABCDEF0123456789abcd","x":0,"y":0,"width":1,"height":1}]}`,
	})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(recs) != 1 || recs[0].ID != "keys.canvas#k" {
		t.Fatalf("records %+v, want only keys.canvas's card", recs)
	}
	if strings.Contains(recs[0].Text, "ghp_") || recs[0].Redactions != 1 {
		t.Errorf("card text %q, %d redactions: the token must be redacted", recs[0].Text, recs[0].Redactions)
	}
	var bad []string
	for _, p := range problems {
		bad = append(bad, p.Path[strings.LastIndex(p.Path, "/")+1:]+": "+p.Reason)
	}
	slices.Sort(bad)
	if len(bad) != 2 || !strings.HasPrefix(bad[0], "broken.canvas: not a JSON Canvas") || !strings.HasPrefix(bad[1], "list.canvas: not a JSON Canvas") {
		t.Errorf("problems %q, want broken.canvas and list.canvas reported as not JSON Canvas", bad)
	}
}

// relationsCanvas joins cards with arrows: a labelled one between two
// text cards, unlabelled ones, arrows to a note's file card and to a link
// card, and arrows that name no card, name only one, or join a card to
// itself.
const relationsCanvas = `{
	"nodes":[
		{"id":"billing","type":"text","text":"Migrate billing to the new vendor\nIt needs a signed contract.","x":0,"y":0,"width":300,"height":200},
		{"id":"legal","type":"text","text":"## Legal **review**\nCounsel reads the contract.","x":400,"y":0,"width":300,"height":200},
		{"id":"freeze","type":"text","text":"Freeze deploys in December.","x":0,"y":300,"width":300,"height":200},
		{"id":"party","type":"text","text":"Team dinner on the 12th.","x":400,"y":300,"width":300,"height":200},
		{"id":"blank","type":"text","text":"  ","x":800,"y":300,"width":300,"height":200},
		{"id":"phoenix","type":"file","file":"Projects/Project Phoenix.md","x":0,"y":600,"width":300,"height":200},
		{"id":"status","type":"link","url":"https://status.example.com/billing","x":400,"y":600,"width":300,"height":200},
		{"id":"keyed","type":"link","url":"https://ci.example.com/?token=ghp_0123456789abcdefABCDEF0123456789abcd","x":800,"y":600,"width":300,"height":200},
		{"id":"alone","type":"link","url":"https://alone.example.com","x":800,"y":900,"width":300,"height":200}
	],
	"edges":[
		{"id":"e1","fromNode":"billing","fromSide":"right","toNode":"legal","toSide":"left","label":"depends on"},
		{"id":"e2","fromNode":"freeze","toNode":"party"},
		{"id":"e3","fromNode":"freeze","toNode":"phoenix","label":"  blocks\n"},
		{"id":"e4","fromNode":"status","toNode":"billing"},
		{"id":"e5","fromNode":"party","toNode":"keyed","label":"see"},
		{"id":"e6","fromNode":"billing","toNode":"nowhere","label":"ghost"},
		{"id":"e7","toNode":"legal","label":"half"},
		{"id":"e8","fromNode":"legal","toNode":"legal","label":"self"},
		{"id":"e9","fromNode":"phoenix","toNode":"status","label":"no card"},
		{"id":"e10","fromNode":"legal","toNode":"blank","label":"to nothing"},
		{"id":"e11","fromNode":"party","toNode":"phoenix"},
		{"id":"e12","fromNode":"freeze","toNode":"legal","label":"waits for","fromEnd":"arrow","toEnd":"none"},
		"not an edge"
	]
}`

// TestRead_canvasRelations: what a canvas's arrows say is recalled with
// the cards they join. Before, arrows were not read: "what does the
// billing migration depend on" found no answer on a board where an arrow
// labelled "depends on" said it, and a link or file card joined to a card
// was lost. A labelled arrow between two text cards adds a line to both
// (→ on the card it leaves, ← on the card it reaches) naming the label
// and the other card's first line; an unlabelled one adds nothing, as
// each card is already its own memory. File and link cards are no memory
// of their own, so an arrow to one, labelled or not, names the note or
// the address in the text card's memory. An arrow that names an unknown
// card, lacks an end, joins a card to itself, reaches an empty card or
// joins no text card is ignored; so is an edges entry that is no edge.
// An arrow drawn with its head at its fromNode (fromEnd "arrow", toEnd
// "none") points the other way, and its lines say so.
// Ids and lines are the cards' own, as before.
func TestRead_canvasRelations(t *testing.T) {
	long := strings.Repeat("word ", 40)
	dir := writeTree(t, map[string]string{
		"Roadmap.canvas": relationsCanvas,
		// Edges that are no list cost the arrows, not the cards.
		"odd edges.canvas": `{"nodes":[{"id":"a","type":"text","text":"Card a"},{"id":"b","type":"text","text":"Card b"}],"edges":{"a":"b"}}`,
		// A card's first line can be a paragraph: the other card gets its
		// start, not all of it again.
		"long.canvas": `{"nodes":[{"id":"a","type":"text","text":"Short"},{"id":"b","type":"text","text":"` + long + `"}],"edges":[{"fromNode":"a","toNode":"b","label":"needs"}]}`,
	})
	recs, problems := collect(t, config.Source{Name: "notes", Kind: config.KindMarkdown, Path: dir})
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	type got struct {
		id, text         string
		line, redactions int
	}
	var all []got
	for _, r := range recs {
		all = append(all, got{r.ID, r.Text, r.Line, r.Redactions})
	}
	want := []got{
		{"Roadmap.canvas#billing", "Migrate billing to the new vendor\nIt needs a signed contract.\n→ depends on: Legal review\n← https://status.example.com/billing", 3, 0},
		{"Roadmap.canvas#legal", "Legal **review**\nCounsel reads the contract.\n← depends on: Migrate billing to the new vendor\n→ waits for: Freeze deploys in December.", 4, 0},
		{"Roadmap.canvas#freeze", "Freeze deploys in December.\n→ blocks: Project Phoenix\n← waits for: Legal review", 5, 0},
		{"Roadmap.canvas#party", "Team dinner on the 12th.\n→ see: https://ci.example.com/?token=[redacted]\n→ Project Phoenix", 6, 1},
		{"long.canvas#a", "Short\n→ needs: " + strings.Repeat("word ", 15) + "word…", 1, 0},
		{"long.canvas#b", strings.TrimSpace(long) + "\n← needs: Short", 1, 0},
		{"odd edges.canvas#a", "Card a", 1, 0},
		{"odd edges.canvas#b", "Card b", 1, 0},
	}
	if !slices.Equal(all, want) {
		t.Fatalf("records:\n%+v\nwant\n%+v", all, want)
	}
}

// TestRead_canvasCardTags: a card's #tags are its tags once each,
// whatever their case, as a note section's are; a card that repeated a
// tag carried it as many times.
func TestRead_canvasCardTags(t *testing.T) {
	recs := noteRecords(t, "b.canvas", `{"nodes":[{"id":"a","type":"text","text":"Plan the #ops rota, then #Ops review #ops #trip/lisbon","x":0,"y":0,"width":10,"height":10}],"edges":[]}`)
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	if want := []string{"ops", "trip/lisbon"}; !slices.Equal(recs[0].Tags, want) {
		t.Errorf("tags %q, want %q", recs[0].Tags, want)
	}
}
