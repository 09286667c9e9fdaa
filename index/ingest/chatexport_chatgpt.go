package ingest

// The ChatGPT side of a chat export (see readChatExport): a conversation's
// mapping tree, the branch the user sees, canvas documents and citation
// markup.

import (
	"cmp"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// gptConversation is one conversation of a ChatGPT export.
type gptConversation struct {
	ID             string             `json:"id"`
	ConversationID string             `json:"conversation_id"`
	Title          string             `json:"title"`
	CreateTime     *float64           `json:"create_time"`
	CurrentNode    string             `json:"current_node"`
	Mapping        map[string]gptNode `json:"mapping"`
}

// gptNode is one node of a conversation's tree.
type gptNode struct {
	Parent  *string     `json:"parent"`
	Message *gptMessage `json:"message"`
}

// gptMessage is a node's message.
type gptMessage struct {
	Author struct {
		Role string `json:"role"`
	} `json:"author"`
	CreateTime *float64 `json:"create_time"`
	Recipient  string   `json:"recipient"`
	Content    struct {
		ContentType string            `json:"content_type"`
		Parts       []json.RawMessage `json:"parts"`
		Text        string            `json:"text"`
	} `json:"content"`
	Metadata struct {
		Hidden bool `json:"is_visually_hidden_from_conversation"`
	} `json:"metadata"`
}

// gptQuietContent are the content types that are not dialogue: the
// model's reasoning, the custom instructions and memory ChatGPT adds to
// a conversation, browsing and tool output, errors.
var gptQuietContent = setOf("thoughts", "reasoning_recap", "user_editable_context", "model_editable_context",
	"tether_browsing_display", "tether_quote", "execution_output", "system_error", "sonic_webpage")

// readChatGPT reads the branch of a ChatGPT conversation that ends at
// its current_node.
func readChatGPT(x *chatExport, raw json.RawMessage) error {
	var c gptConversation
	if err := json.Unmarshal(raw, &c); err != nil {
		return err
	}
	conv := cmp.Or(c.ID, c.ConversationID)
	if conv == "" {
		return errors.New("no id")
	}
	branch, err := gptBranch(c.Mapping, c.CurrentNode)
	if err != nil {
		return err
	}
	last := gptTime(x.fc, c.CreateTime)
	var doc *chatDoc // the canvas document the conversation last wrote
	for _, id := range branch {
		m := c.Mapping[id].Message
		if m == nil {
			continue
		}
		if t := gptTime(x.fc, m.CreateTime); !t.IsZero() {
			last = t
		}
		role := m.Author.Role
		var text, subject string
		switch {
		case role == "assistant" && m.Recipient == gptCanvasCreate && !m.Metadata.Hidden:
			if doc = gptCanvasDoc(conv, id, m.Content.Text); doc != nil {
				text, subject = doc.text(), doc.subject
			}
		case role == "assistant" && m.Recipient == gptCanvasUpdate && !m.Metadata.Hidden:
			if doc == nil || !doc.gptUpdate(m.Content.Text) {
				continue // a document not read, or a change not known
			}
			text, subject = doc.text(), doc.subject
		case role != "user" && role != "assistant" || m.Metadata.Hidden || m.Recipient != "" && m.Recipient != "all":
			continue // system, tool and hidden messages; calls to tools
		default:
			text = x.gptText(m)
		}
		if !hasContent(text) {
			continue
		}
		if err := x.emit(chatGPTAgent, conv, id, role, c.Title, text, subject, last); err != nil {
			return err
		}
	}
	return nil
}

// The recipients of the assistant's calls that write a document in a
// canvas (the canmore tool's schema): gptCanvasCreate's content is JSON
// {name, type, content}, the document, which is the assistant's words,
// shown beside the conversation; gptCanvasUpdate's is {updates:
// [{pattern, multiple, replacement}]}, changes to the document the
// conversation last wrote, each version of which is read (see
// chatDoc.gptUpdate).
const (
	gptCanvasCreate = "canmore.create_textdoc"
	gptCanvasUpdate = "canmore.update_textdoc"
)

// gptCanvasDoc is the canvas document message id of conversation conv
// creates, nil when the call is not of that shape.
func gptCanvasDoc(conv, id, call string) *chatDoc {
	var doc struct {
		Name    string `json:"name"`
		Content string `json:"content"`
	}
	if json.Unmarshal([]byte(call), &doc) != nil || strings.TrimSpace(doc.Content) == "" {
		return nil
	}
	return newChatDoc("canvas", conv, id, doc.Name, doc.Content)
}

// gptUpdate applies a canmore.update_textdoc call to the document and
// reports whether it did. A pattern is a Python regular expression, ".*"
// the whole document (the tool's own instructions rewrite a document so),
// and a replacement is expanded as Python's re.Match.expand does; the
// first match is replaced, or all of them when multiple is set. A call of
// another shape, or a pattern Go cannot compile or that is not in the
// document (the tool refused it), changes nothing: what it made of the
// document is not known.
func (d *chatDoc) gptUpdate(call string) bool {
	var in struct {
		Updates []struct {
			Pattern     string `json:"pattern"`
			Multiple    bool   `json:"multiple"`
			Replacement string `json:"replacement"`
		} `json:"updates"`
	}
	if json.Unmarshal([]byte(call), &in) != nil || len(in.Updates) == 0 {
		return false
	}
	content := d.content
	for _, u := range in.Updates {
		if u.Pattern == ".*" {
			content = u.Replacement
			continue
		}
		re, err := regexp.Compile(u.Pattern)
		if err != nil {
			return false
		}
		n := 1
		if u.Multiple {
			n = -1
		}
		matches := re.FindAllStringSubmatchIndex(content, n)
		if len(matches) == 0 {
			return false
		}
		var b strings.Builder
		at := 0
		for _, m := range matches {
			b.WriteString(content[at:m[0]])
			b.WriteString(pyExpand(re, u.Replacement, content, m))
			at = m[1]
		}
		b.WriteString(content[at:])
		content = b.String()
	}
	d.content = content
	return true
}

// pyExpand is a Python replacement template expanded for one match m of
// re in src: \1 and \g<1> or \g<name> are groups, \n and \t a line
// break and a tab, \\ a backslash; any other escape is kept as written.
func pyExpand(re *regexp.Regexp, tmpl, src string, m []int) string {
	group := func(i int) string {
		if i < 0 || 2*i+1 >= len(m) || m[2*i] < 0 {
			return ""
		}
		return src[m[2*i]:m[2*i+1]]
	}
	var b strings.Builder
	for i := 0; i < len(tmpl); i++ {
		c := tmpl[i]
		if c != '\\' || i+1 == len(tmpl) {
			b.WriteByte(c)
			continue
		}
		next := tmpl[i+1]
		switch {
		case next == 'g' && i+2 < len(tmpl) && tmpl[i+2] == '<':
			end := strings.IndexByte(tmpl[i+3:], '>')
			if end < 0 {
				b.WriteByte(c)
				continue
			}
			name := tmpl[i+3 : i+3+end]
			if n, err := strconv.Atoi(name); err == nil {
				b.WriteString(group(n))
			} else {
				b.WriteString(group(re.SubexpIndex(name)))
			}
			i += 3 + end
		case next >= '1' && next <= '9': // \0 is an octal escape, not a group
			j := i + 2
			if j < len(tmpl) && tmpl[j] >= '0' && tmpl[j] <= '9' {
				j++ // two digits at most, as Python reads a group
			}
			n, _ := strconv.Atoi(tmpl[i+1 : j])
			b.WriteString(group(n))
			i = j - 1
		case next == 'n':
			b.WriteByte('\n')
			i++
		case next == 't':
			b.WriteByte('\t')
			i++
		case next == '\\':
			b.WriteByte('\\')
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// gptBranch is the branch of mapping that ends at node, from its root.
// A conversation whose current_node is null, absent or not in its
// mapping (public parsers meet all three) ends at its newest leaf
// instead (see gptNewestLeaf).
func gptBranch(mapping map[string]gptNode, node string) ([]string, error) {
	if _, ok := mapping[node]; !ok {
		if node = gptNewestLeaf(mapping); node == "" {
			return nil, nil // an empty mapping: nothing said
		}
	}
	var up []string
	for id := node; ; {
		if len(up) == len(mapping) {
			return nil, errors.New("its mapping's parents make a cycle")
		}
		up = append(up, id)
		n := mapping[id]
		if n.Parent == nil {
			break
		}
		if _, ok := mapping[*n.Parent]; !ok {
			break // a root whose parent was not exported
		}
		id = *n.Parent
	}
	for i, j := 0, len(up)-1; i < j; i, j = i+1, j-1 {
		up[i], up[j] = up[j], up[i]
	}
	return up, nil
}

// gptNewestLeaf is the leaf of mapping (a node no other node names as
// its parent) whose branch was written last: the answer regenerated or
// the prompt edited most recently, which the user most likely kept. A
// leaf without a time of its own takes the newest on the way to its
// root; ties go to the greater id, so that the choice does not depend
// on the map's order. It is "" for an empty mapping.
func gptNewestLeaf(mapping map[string]gptNode) string {
	parents := make(map[string]bool, len(mapping))
	for _, n := range mapping {
		if n.Parent != nil {
			parents[*n.Parent] = true
		}
	}
	best, bestAt := "", -1.0
	for id := range mapping {
		if parents[id] {
			continue
		}
		at := gptBranchTime(mapping, id)
		if at > bestAt || at == bestAt && id > best {
			best, bestAt = id, at
		}
	}
	if best == "" {
		// Every node is a parent: a cycle, which gptBranch reports.
		for id := range mapping {
			best = max(best, id)
		}
	}
	return best
}

// gptBranchTime is the time of the message nearest to node on the way to
// its root that has one (0 when none does).
func gptBranchTime(mapping map[string]gptNode, node string) float64 {
	for range len(mapping) {
		n, ok := mapping[node]
		if !ok {
			break
		}
		if n.Message != nil && n.Message.CreateTime != nil {
			return *n.Message.CreateTime
		}
		if n.Parent == nil {
			break
		}
		node = *n.Parent
	}
	return 0
}

// gptTime reads epoch seconds (zero when absent).
func gptTime(fc *fileCtx, secs *float64) time.Time {
	if secs == nil {
		return time.Time{}
	}
	_, t, _ := epochDate(strconv.FormatFloat(*secs, 'f', -1, 64), fc.loc)
	return t
}

// gptText is a message's words: its string parts, an image as a
// placeholder, the text of code the assistant showed.
func (x *chatExport) gptText(m *gptMessage) string {
	switch ct := m.Content.ContentType; {
	case ct == "text" || ct == "multimodal_text":
		var texts []string
		for _, p := range m.Content.Parts {
			var s string
			if json.Unmarshal(p, &s) == nil {
				texts = append(texts, gptUnmark(s))
				continue
			}
			var obj struct {
				ContentType string `json:"content_type"`
				Text        string `json:"text"`
			}
			_ = json.Unmarshal(p, &obj)
			switch obj.ContentType {
			case "image_asset_pointer":
				texts = append(texts, imageMark)
			case "audio_transcription":
				texts = append(texts, obj.Text) // a voice turn's words
			}
		}
		return strings.Join(texts, "\n")
	case ct == "code":
		return m.Content.Text
	case !gptQuietContent[ct]:
		x.reported.report(x.fc, 0, "content type "+strconv.Quote(ct))
	}
	return ""
}

// ChatGPT writes its citations into an answer's text as markup its app
// renders (pionxzh/chatgpt-exporter issue #259,
// daugaard47/ChatGPT_Conversations_To_Markdown issue #8): a reference
// between U+E200 and U+E201, its fields split by U+E202 (cite, filecite,
// navlist, an image group...), U+E203 and U+E204 around the span a
// citation covers, and in older answers 【8†source】. Of all that, the
// user read only the name an entity reference shows and a link's label
// (CherryHQ/cherry-studio ChatgptImporter keeps both).
var (
	// gptMarker is a reference, with the space before it.
	gptMarker = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[ \t]*\x{E200}([^\x{E200}\x{E201}]*)\x{E201}`) })
	// gptSourceMark is an older answer's citation, with the space before it.
	gptSourceMark = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[ \t]*【\d+(?::\d+)?†[^】\n]{0,40}】`) })
)

// gptUnmark is text without ChatGPT's citation markup: an entity
// reference (entity, then a JSON list of its kind and its name) becomes
// its name, a link (url, its label, its target) its label, any other
// reference and the span marks are dropped.
func gptUnmark(text string) string {
	if !strings.ContainsAny(text, "\uE200\uE203\uE204】") {
		return text
	}
	text = gptMarker().ReplaceAllStringFunc(text, func(m string) string {
		lead := m[:strings.Index(m, "\uE200")]
		kind, rest, _ := strings.Cut(gptMarker().FindStringSubmatch(m)[1], "\uE202")
		switch kind {
		case "url":
			label, _, _ := strings.Cut(rest, "\uE202") // then the link's target
			return lead + label
		case "entity":
		default:
			return ""
		}
		var fields []any
		if json.Unmarshal([]byte(rest), &fields) != nil {
			return lead + rest // a bare name
		}
		if len(fields) > 1 {
			if name, ok := fields[1].(string); ok {
				return lead + name
			}
		}
		return ""
	})
	text = gptSourceMark().ReplaceAllString(text, "")
	return strings.NewReplacer("\uE203", "", "\uE204", "").Replace(text)
}
