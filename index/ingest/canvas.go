package ingest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/truncate"
)

// canvasExt is the extension of a JSON Canvas file (jsoncanvas.org), the
// board Obsidian's Canvas view saves beside a vault's notes.
const canvasExt = ".canvas"

// canvasNode is the part of a JSON Canvas node that a memory needs: a
// text card's Markdown, a group's label, a file card's path, a link
// card's address, and where each sits.
type canvasNode struct {
	ID     string  `json:"id"`
	Type   string  `json:"type"`
	Text   string  `json:"text"`
	Label  string  `json:"label"`
	File   string  `json:"file"`
	URL    string  `json:"url"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// inside reports whether n lies wholly within g, as a card dropped in a
// group does: the format records no membership, only positions.
func (n canvasNode) inside(g canvasNode) bool {
	return n.X >= g.X && n.Y >= g.Y && n.X+n.Width <= g.X+g.Width && n.Y+n.Height <= g.Y+g.Height
}

// canvasEdge is the part of a JSON Canvas edge (an arrow) that a memory
// needs: the nodes it joins, where its heads are ("arrow" or "none";
// unset, only the toNode end has one) and its label.
type canvasEdge struct {
	FromNode string `json:"fromNode"`
	ToNode   string `json:"toNode"`
	FromEnd  string `json:"fromEnd"`
	ToEnd    string `json:"toEnd"`
	Label    string `json:"label"`
}

// readCanvas emits one record per text card of a canvas, in reading
// order (top to bottom, then left to right), so that a card's
// neighbours are the cards beside it. A card is titled with the canvas's
// name and the label of the smallest group it sits in, and cited by the
// line that holds it; its Markdown reads as a note's, followed by what
// the arrows joined to it say (canvasRelations). Groups, and file and
// link cards, are no memory of their own: a file card's note is indexed
// anyway, and an address alone answers no question.
func readCanvas(fc *fileCtx) error {
	raw, fi, err := readNote(fc, "canvas")
	if err != nil || raw == nil {
		return err
	}
	var canvas struct {
		Nodes []canvasNode `json:"nodes"`
		// Edges are decoded apart, each on its own (canvasRelations):
		// an arrow a plugin or a hand wrote wrongly costs that arrow,
		// not the board's cards.
		Edges json.RawMessage `json:"edges"`
	}
	if err := json.Unmarshal(raw, &canvas); err != nil {
		fc.problem(0, "not a JSON Canvas file ("+err.Error()+"): skipped")
		return nil
	}
	name := pageName(noteStem(fc.path))
	var groups, cards []canvasNode
	for _, n := range canvas.Nodes {
		switch n.Type {
		case "group":
			groups = append(groups, n)
		case "text":
			cards = append(cards, n)
		}
	}
	slices.SortStableFunc(cards, func(a, b canvasNode) int { return cmp.Or(cmp.Compare(a.Y, b.Y), cmp.Compare(a.X, b.X)) })
	type cardText struct {
		text       string
		tags       []string
		redactions int
	}
	texts := make([]cardText, len(cards))
	byID := map[string]string{}
	for i, card := range cards {
		text, tags := cleanNote(canvasMarkdown(card.Text), true)
		tags = uniqueTags(tags)
		text, redactions := cleanText(text)
		texts[i] = cardText{text, tags, redactions}
		if _, dup := byID[card.ID]; !dup {
			byID[card.ID] = text
		}
	}
	relations := canvasRelations(canvas.Nodes, canvas.Edges, func(id string) string { return byID[id] })
	date := fi.ModTime().In(fc.loc).Format("2006-01-02") // the reader's zone, not time.Local
	used := map[string]int{}
	for i, card := range cards {
		if err := fc.ctx.Err(); err != nil {
			return err
		}
		text, tags, redactions := texts[i].text, texts[i].tags, texts[i].redactions
		if text == "" {
			continue
		}
		if lines := relations[card.ID]; len(lines) > 0 {
			more, n := cleanText(strings.Join(lines, "\n"))
			text, redactions = text+"\n"+more, redactions+n
		}
		title := name
		var group *canvasNode
		for i, g := range groups {
			if g.Label != "" && card.inside(g) && (group == nil || g.Width*g.Height < group.Width*group.Height) {
				group = &groups[i]
			}
		}
		if group != nil {
			title += " > " + headingText(group.Label)
		}
		key := cmp.Or(card.ID, "card")
		used[key]++
		if n := used[key]; n > 1 {
			key = fmt.Sprintf("%s~%d", key, n)
		}
		rec := memory.Record{
			ID: fc.rel + "#" + key, Text: text, Title: title, Date: date, Tags: tags,
			Path: fc.path, Line: canvasLine(raw, card.ID), Kind: config.KindMarkdown, Layer: "note", Redactions: redactions,
		}
		if err := fc.emit(rec); err != nil {
			return err
		}
	}
	return nil
}

// canvasRelations is, by text card id, the lines the arrows joined to
// each card add to its memory, in the order of the canvas's edges: so
// that "what blocks the launch" finds the card an arrow labelled
// "blocks" leaves. A labelled arrow between two text cards gives each a
// line with the label and the other card's first line: "→ blocks:
// Launch" on the card it leaves, "← blocks: Vendor" on the card it
// reaches. An unlabelled one gives nothing, as each card is its own
// memory already and the other's words would be noise in this one. A
// file or link card is no memory of its own, so an arrow to one names
// its note or address, labelled ("→ depends on: Project Phoenix") or not
// ("→ https://…"): there is nowhere else it is recalled. An arrow that is
// no JSON object of an edge, names a node the canvas lacks, joins a node
// to itself, or reaches an empty card or a group is ignored. An arrow
// whose only head is at its fromNode reads as drawn, the other way; one
// with two heads or none reads from fromNode to toNode. text gives
// a text card's cleaned text by id; the labels, addresses and note names
// in the lines are not yet redacted, which the caller does.
func canvasRelations(nodes []canvasNode, rawEdges json.RawMessage, text func(id string) string) map[string][]string {
	var edges []json.RawMessage
	if json.Unmarshal(rawEdges, &edges) != nil {
		return nil
	}
	byID := map[string]canvasNode{}
	for _, n := range nodes {
		if _, dup := byID[n.ID]; !dup && n.ID != "" {
			byID[n.ID] = n
		}
	}
	// name is what a line calls node n, and whether it is a text card.
	name := func(n canvasNode) (string, bool) {
		switch n.Type {
		case "text":
			first, _, _ := strings.Cut(text(n.ID), "\n")
			first = headingText(strings.TrimSpace(first))
			if utf8.RuneCountInString(first) > maxRelationName {
				first = strings.TrimSpace(truncate.Runes(first, maxRelationName-1)) + "…"
			}
			return first, true
		case "file":
			base := path.Base(n.File)
			if strings.EqualFold(path.Ext(base), ".md") {
				base = pageName(strings.TrimSuffix(base, path.Ext(base)))
			}
			return strings.TrimSpace(base), false
		case "link":
			return strings.TrimSpace(n.URL), false
		}
		return "", false
	}
	out := map[string][]string{}
	for _, raw := range edges {
		var e canvasEdge
		if json.Unmarshal(raw, &e) != nil || e.FromNode == e.ToNode {
			continue
		}
		// A head at the fromNode end only is an arrow drawn the other
		// way: what it reaches is its fromNode.
		if e.FromEnd == "arrow" && e.ToEnd == "none" {
			e.FromNode, e.ToNode = e.ToNode, e.FromNode
		}
		from, okFrom := byID[e.FromNode]
		to, okTo := byID[e.ToNode]
		if !okFrom || !okTo {
			continue
		}
		fromName, fromText := name(from)
		toName, toText := name(to)
		if fromName == "" || toName == "" {
			continue
		}
		label := strings.Join(strings.Fields(e.Label), " ")
		line := func(arrow, other string) string {
			if label == "" {
				return arrow + " " + other
			}
			return arrow + " " + label + ": " + other
		}
		switch {
		case fromText && toText:
			if label != "" {
				out[from.ID] = append(out[from.ID], line("→", toName))
				out[to.ID] = append(out[to.ID], line("←", fromName))
			}
		case fromText:
			out[from.ID] = append(out[from.ID], line("→", toName))
		case toText:
			out[to.ID] = append(out[to.ID], line("←", fromName))
		}
	}
	return out
}

// maxRelationName is the most code points of a card's first line that a
// relation line repeats in another card's memory: enough to name it, not
// so much that a paragraph is indexed twice.
const maxRelationName = 80

// canvasMarkdown is a card's Markdown with its headings made plain lines:
// a card is one memory, and "## Vendor" at its top is its first words.
func canvasMarkdown(text string) string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	heading := atxHeading()
	for i, line := range lines {
		if m := heading.FindStringSubmatch(line); m != nil {
			lines[i] = m[2]
		}
	}
	return strings.Join(lines, "\n")
}

// canvasLine is the line of raw that holds the node with id, as Obsidian
// writes a node per line; 1 when it cannot be told.
func canvasLine(raw []byte, id string) int {
	quoted, _ := json.Marshal(id)
	for _, sep := range []string{`"id":`, `"id": `} {
		if i := bytes.Index(raw, append([]byte(sep), quoted...)); i >= 0 {
			return bytes.Count(raw[:i], []byte("\n")) + 1
		}
	}
	return 1
}
