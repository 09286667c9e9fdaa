package ingest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// canvasExt is the extension of a JSON Canvas file (jsoncanvas.org), the
// board Obsidian's Canvas view saves beside a vault's notes.
const canvasExt = ".canvas"

// canvasNode is the part of a JSON Canvas node that a memory needs: a
// text card's Markdown, a group's label, and where each sits.
type canvasNode struct {
	ID     string  `json:"id"`
	Type   string  `json:"type"`
	Text   string  `json:"text"`
	Label  string  `json:"label"`
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

// readCanvas emits one record per text card of a canvas, in reading
// order (top to bottom, then left to right), so that a card's
// neighbours are the cards beside it. A card is titled with the canvas's
// name and the label of the smallest group it sits in, and cited by the
// line that holds it; its Markdown reads as a note's. File cards (a note
// the vault indexes anyway), links and groups hold no text of their own;
// the arrows' labels are not read.
func readCanvas(fc *fileCtx) error {
	raw, fi, err := readNote(fc, "canvas")
	if err != nil || raw == nil {
		return err
	}
	var canvas struct {
		Nodes []canvasNode `json:"nodes"`
	}
	if err := json.Unmarshal(raw, &canvas); err != nil {
		fc.problem(0, "not a JSON Canvas file ("+err.Error()+"): skipped")
		return nil
	}
	name := pageName(strings.TrimSuffix(filepath.Base(fc.path), filepath.Ext(fc.path)))
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
	date := fi.ModTime().Format("2006-01-02")
	used := map[string]int{}
	for _, card := range cards {
		if err := fc.ctx.Err(); err != nil {
			return err
		}
		text, tags := cleanNote(canvasMarkdown(card.Text))
		text, redactions := cleanText(text)
		if text == "" {
			continue
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

// canvasMarkdown is a card's Markdown with its headings made plain lines:
// a card is one memory, and "## Vendor" at its top is its first words.
func canvasMarkdown(text string) string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, line := range lines {
		if m := atxHeading.FindStringSubmatch(line); m != nil {
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
