package ingest

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nova-recall/nova/config"
)

// A chat-export source is a folder of unzipped data exports of ChatGPT
// (Settings > Data controls > Export data) and Claude.ai (Settings >
// Privacy > Export data): each export's conversations.json is a JSON
// list of conversations, whose shape tells the service that wrote it.
//
// As of 2026-12 neither service documents the format; the shapes are the
// ones public parsers and their notes agree on (ChatGPT:
// mitkury/chatgpt-export-parser docs/chatgpt-data-export-format.md,
// josephjohncox/chatgpt-json-to-md README.md; Claude.ai:
// Sinity/polylogue docs/providers/claude-ai.md, which reads the messages
// as one ordered list, and socketteer/Claude-Conversation-Exporter
// README.md; CherryHQ/cherry-studio AnthropicImporter for the branches a
// newer Claude.ai export lists). Not seen in those, so not read: the
// project either service files a conversation under. The shapes:
//
//   - ChatGPT: {id (or conversation_id), title, create_time, update_time
//     (epoch seconds, a float), current_node, mapping: {node id: {id,
//     parent, children, message}}}, a message {id, author: {role:
//     user|assistant|system|tool}, create_time, recipient ("all", or the
//     tool an assistant's call goes to), content: {content_type, parts
//     (strings, and objects such as an image_asset_pointer) or text},
//     metadata: {is_visually_hidden_from_conversation}}. The mapping is a
//     tree: an edited prompt or a regenerated answer branches it, and
//     current_node is the end of the branch the user sees (null in some
//     exports: then the newest leaf is);
//   - Claude.ai: {uuid, name, created_at, updated_at (ISO 8601),
//     chat_messages: [{uuid, sender: human|assistant, text, content:
//     [{type: text, text}, thinking, tool_use, tool_result...],
//     created_at, parent_message_uuid, attachments: [{file_name,
//     extracted_content}], files (files_v2): [{file_name, file_kind}]}],
//     current_leaf_message_uuid},
//     the messages in order, every branch of the tree the parents make
//     (see claudeAIBranch); older exports have text only, and one branch.
//
// Each turn of the branch the user sees is a dialogue record of agent
// chatgpt or claude.ai (or the source's agent), titled with its
// conversation, at its message's time (the one before it when it has
// none, else the conversation's), keyed by conversation and message id so
// that a later export, which lists more conversations, keeps them.
// System, tool and hidden messages, an assistant's calls to tools (but
// the documents a ChatGPT canvas or a Claude.ai artifact holds, each
// version of which is a record of the document's subject, see chatDoc,
// gptCanvasCreate and claudeAIArtifact), reasoning (a Claude.ai
// answer's <antThinking> too, see claudeAIUnmark), tool output and
// ChatGPT's citation markup (see gptUnmark) are not read; an image is a
// placeholder. What the user pasted or uploaded into a Claude.ai prompt
// is read with it (see claudeAIUploads).
//
// Exports are large (hundreds of MB): the list is decoded one
// conversation at a time. A malformed conversation is reported with its
// index and skipped; a file that is neither shape is reported and
// skipped; a file cut short keeps the conversations before the cut.

// The agents of a chat export's records: the services that wrote them.
const (
	chatGPTAgent  = "chatgpt"
	claudeAIAgent = "claude.ai"
)

// chatExportName is the include glob of a chat-export source: an
// export's conversations.json, or a copy a browser renamed
// ("conversations (1).json"). Its other files (user.json,
// shared_conversations.json, message_feedback.json) hold no dialogue;
// a Claude.ai export's projects (claudeAIProjectsNames) are the user's
// own words. Its memories.json is not read: the memory Claude.ai keeps
// of the user is Claude's summary of the conversations (public readers
// take its conversations_memory as "the memory Claude has"), which the
// conversations themselves hold in the user's words.
const chatExportName = "conversations*.json"

// claudeAIProjectsNames are the include globs of a Claude.ai export's
// projects: projects.json, a list, or in newer exports one file a project
// in projects/ (see readClaudeAIProjects).
var claudeAIProjectsNames = []string{"projects.json", "**/projects/*.json"}

// notChatExport is the problem of a file of neither shape.
const notChatExport = "not a ChatGPT or Claude.ai export (a JSON list of conversations with a mapping or chat_messages): skipped"

// chatReader reads one conversation of a file's shape; an error is a
// malformed conversation, reported (with its index) and skipped.
type chatReader func(x *chatExport, raw json.RawMessage) error

// chatExport is the reading of one conversations.json.
type chatExport struct {
	fc       *fileCtx
	reported shapeReports
	// conv is the conversation being read and turns the records it has
	// given so far: a turn's line is its place in its conversation.
	conv  string
	turns int
}

// readChatExport reads a conversations.json, one conversation at a time,
// or a Claude.ai export's projects.
func readChatExport(fc *fileCtx) error {
	f, err := openSource(fc.path)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(len(utf8BOM)); bytes.Equal(head, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM))
	}
	if matchGlobs(claudeAIProjectsNames, fc.rel) {
		return readClaudeAIProjects(fc, br)
	}
	dec := json.NewDecoder(br)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		fc.problem(0, notChatExport)
		return nil
	}
	x := &chatExport{fc: fc}
	var read chatReader
	n := 0
	for ; dec.More(); n++ {
		if err := fc.ctx.Err(); err != nil {
			return err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			x.cut(n, err)
			return nil
		}
		if read == nil {
			if read = chatShape(raw); read == nil {
				fc.problem(0, notChatExport)
				return nil
			}
		}
		if err := read(x, raw); err != nil {
			var se *sinkError
			if errors.As(err, &se) {
				return err
			}
			fc.problem(0, fmt.Sprintf("conversations[%d]%s is malformed (%s): skipped", n, chatID(raw), chatErr(err)))
		}
	}
	if _, err := dec.Token(); err != nil {
		x.cut(n, err)
	}
	return nil
}

// cut reports a list that stops short of its end before conversation n:
// what follows cannot be found.
func (x *chatExport) cut(n int, err error) {
	if n == 0 {
		x.fc.problem(0, notChatExport+" ("+trimErr(err)+")")
		return
	}
	x.fc.problem(0, fmt.Sprintf("cut short after conversations[%d] (a copy or unzip in progress, or interrupted): the rest is not read (%s)", n-1, trimErr(err)))
}

// chatShape is the reader of the shape of a file's first conversation,
// nil when it is neither.
func chatShape(raw json.RawMessage) chatReader {
	var head struct {
		Mapping      json.RawMessage `json:"mapping"`
		ChatMessages json.RawMessage `json:"chat_messages"`
	}
	if json.Unmarshal(raw, &head) != nil {
		return nil
	}
	switch {
	case head.Mapping != nil:
		return readChatGPT
	case head.ChatMessages != nil:
		return readClaudeAI
	}
	return nil
}

// chatErr is why a conversation is malformed: a field of the wrong type
// is named as the export spells it, not by the reader's Go types.
func chatErr(err error) string {
	var wrongType *json.UnmarshalTypeError
	if errors.As(err, &wrongType) && wrongType.Field != "" {
		return fmt.Sprintf("%q is a JSON %s", wrongType.Field, wrongType.Value)
	}
	return trimErr(err)
}

// chatID names a malformed conversation by its id, when it has one.
func chatID(raw json.RawMessage) string {
	var ids struct {
		ID             any `json:"id"`
		ConversationID any `json:"conversation_id"`
		UUID           any `json:"uuid"`
	}
	_ = json.Unmarshal(raw, &ids)
	for _, v := range []any{ids.ID, ids.ConversationID, ids.UUID} {
		if s, ok := v.(string); ok && s != "" {
			return " (" + strconv.Quote(trimID(s)) + ")"
		}
	}
	return ""
}

// trimID bounds an id quoted in a problem.
func trimID(s string) string {
	if len(s) > 80 {
		return s[:80]
	}
	return s
}

// emit makes the record of one turn of conversation conv. An export
// has no line per turn (it is one JSON list, often on one line), so a
// turn's line is its place in its conversation: the index knows a
// record, and the order of a conversation's neighbours, by its file and
// line, and turns sharing one had no neighbouring context. subject, when
// not "", is that of the document the turn is a version of (see
// chatDoc).
func (x *chatExport) emit(agent, conv, msgID, role, title, text, subject string, when time.Time) error {
	return x.emitID(agent, conv, conv+":"+msgID, role, title, text, subject, when)
}

// emitID is emit of a record whose id is id.
func (x *chatExport) emitID(agent, conv, id, role, title, text, subject string, when time.Time) error {
	if conv != x.conv {
		x.conv, x.turns = conv, 0
	}
	m := message{role: role, text: text, title: title, time: when, line: x.turns + 1}
	rec, ok := m.record(x.fc, config.KindChatExport, conv, id, conv)
	if !ok {
		return nil
	}
	x.turns++
	rec.Agent = x.fc.agent(agent)
	rec.Subject = subject
	return x.fc.emit(rec)
}

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

// chatDoc is a document a conversation writes and then revises (a
// ChatGPT canvas, a Claude.ai artifact): each version is a record of its
// subject, so that the newest supersedes the ones before it, and the
// final document is what a search ranks first.
type chatDoc struct {
	subject, name, content string
}

// newChatDoc is a document of conversation conv that key names (the
// message creating it, or the artifact's id).
func newChatDoc(kind, conv, key, name, content string) *chatDoc {
	return &chatDoc{subject: subjectKey(kind + " " + conv + " " + key), name: strings.TrimSpace(name), content: content}
}

// text is the version's record text: the document's name on a line of
// its own, then its content.
func (d *chatDoc) text() string {
	if d.name != "" {
		return d.name + "\n" + d.content
	}
	return d.content
}

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
	gptMarker = regexp.MustCompile(`[ \t]*\x{E200}([^\x{E200}\x{E201}]*)\x{E201}`)
	// gptSourceMark is an older answer's citation, with the space before it.
	gptSourceMark = regexp.MustCompile(`[ \t]*【\d+(?::\d+)?†[^】\n]{0,40}】`)
)

// gptUnmark is text without ChatGPT's citation markup: an entity
// reference (entity, then a JSON list of its kind and its name) becomes
// its name, a link (url, its label, its target) its label, any other
// reference and the span marks are dropped.
func gptUnmark(text string) string {
	if !strings.ContainsAny(text, "\uE200\uE203\uE204】") {
		return text
	}
	text = gptMarker.ReplaceAllStringFunc(text, func(m string) string {
		lead := m[:strings.Index(m, "\uE200")]
		kind, rest, _ := strings.Cut(gptMarker.FindStringSubmatch(m)[1], "\uE202")
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
	text = gptSourceMark.ReplaceAllString(text, "")
	return strings.NewReplacer("\uE203", "", "\uE204", "").Replace(text)
}

// claudeAIConversation is one conversation of a Claude.ai export.
type claudeAIConversation struct {
	UUID         string            `json:"uuid"`
	Name         string            `json:"name"`
	CreatedAt    string            `json:"created_at"`
	CurrentLeaf  string            `json:"current_leaf_message_uuid"`
	ChatMessages []claudeAIMessage `json:"chat_messages"`
}

// claudeAIMessage is one message of a conversation.
type claudeAIMessage struct {
	UUID    string `json:"uuid"`
	Parent  string `json:"parent_message_uuid"`
	Sender  string `json:"sender"`
	Text    string `json:"text"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
		// Name and Input are a tool_use block's call (see
		// claudeAIArtifact).
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content"`
	CreatedAt string `json:"created_at"`
	// Attachments and Files are what the user pasted or uploaded into
	// a prompt (see claudeAIUploads).
	Attachments []claudeAIAttachment `json:"attachments"`
	Files       []claudeAIFile       `json:"files"`
	FilesV2     []claudeAIFile       `json:"files_v2"`
}

// claudeAIAttachment is a file whose text Claude.ai extracted: a long
// paste (which the app turns into a file) or an uploaded text file.
type claudeAIAttachment struct {
	FileName         string `json:"file_name"`
	ExtractedContent string `json:"extracted_content"`
}

// claudeAIFile is an uploaded file the export names but holds no text
// of: an image, or a document Claude.ai read as pages.
type claudeAIFile struct {
	FileName string `json:"file_name"`
	FileKind string `json:"file_kind"`
}

// claudeAIUploads is what the user pasted or uploaded into a prompt, the
// user's own material (a spec, a log, a draft), which the prompt's text
// often only points at ("here is the log"): each attachment's text under
// its file name, the name telling what it is, then a placeholder for each
// file without text (an image, or a document), as other readers mark an
// image or a document part. Its size is the paste's: the record is
// chunked, and cleaned, as any other.
func claudeAIUploads(m claudeAIMessage) []string {
	var out []string
	for _, a := range m.Attachments {
		if strings.TrimSpace(a.ExtractedContent) == "" {
			continue
		}
		if name := strings.TrimSpace(a.FileName); name != "" {
			out = append(out, name+"\n"+a.ExtractedContent)
			continue
		}
		out = append(out, a.ExtractedContent)
	}
	// Public readers take one list or the other (files_v2 where an
	// export has it): the same uploads are not to be counted twice.
	files := m.FilesV2
	if len(files) == 0 {
		files = m.Files
	}
	for _, f := range files {
		if f.FileKind == "image" {
			out = append(out, imageMark)
		} else {
			out = append(out, documentMark)
		}
	}
	return out
}

// claudeAIArtifact applies a tool_use block of the artifacts tool to
// the artifacts of a conversation, docs by their id, and returns the id
// of the artifact it wrote ("" when it wrote none). Its input is {id,
// type, title, command, content}: command create or rewrite writes the
// whole artifact, update {old_str, new_str} changes the first place
// old_str is in (the tool asks for a unique one). Each artifact is the
// assistant's words, shown in a panel of their own, as an older export's
// <antArtifact> is (see claudeAIUnmark); each version is read (see
// chatDoc). An update of an artifact not read (a branch the user left),
// or whose old_str is not in it, changes nothing: what it made of the
// artifact is not known.
func claudeAIArtifact(docs map[string]*chatDoc, conv, name string, input json.RawMessage) string {
	if name != "artifacts" {
		return ""
	}
	var in struct {
		ID      string  `json:"id"`
		Command string  `json:"command"`
		Title   string  `json:"title"`
		Content string  `json:"content"`
		OldStr  *string `json:"old_str"`
		NewStr  string  `json:"new_str"`
	}
	if json.Unmarshal(input, &in) != nil || in.ID == "" {
		return ""
	}
	d := docs[in.ID]
	switch in.Command {
	case "create", "rewrite":
		return claudeAIWrite(docs, conv, in.ID, in.Title, in.Content)
	case "update":
		if d == nil || in.OldStr == nil || *in.OldStr == "" || !strings.Contains(d.content, *in.OldStr) {
			return ""
		}
		d.content = strings.Replace(d.content, *in.OldStr, in.NewStr, 1)
	default:
		return ""
	}
	return in.ID
}

// claudeAIWrite writes the whole of artifact id, titled title (its
// title so far when ""), and returns its id ("" for no content).
func claudeAIWrite(docs map[string]*chatDoc, conv, id, title, content string) string {
	if strings.TrimSpace(content) == "" {
		return ""
	}
	d := docs[id]
	if d == nil {
		docs[id] = newChatDoc("artifact", conv, id, title, content)
		return id
	}
	d.content = content
	if title := strings.TrimSpace(title); title != "" {
		d.name = title
	}
	return id
}

// claudeAIQuietBlocks are the content blocks that are not dialogue.
var claudeAIQuietBlocks = setOf("thinking", "redacted_thinking", "tool_use", "tool_result", "server_tool_use", "web_search_tool_result",
	"token_budget")

// An answer of an older Claude.ai export writes into its text what the
// app shows apart or not at all (meltylabs/chorus AnthropicImporter
// reads both): the model's <antThinking> about making an artifact, never
// shown, and <antArtifact identifier=… type=… title=…> around an
// artifact, shown in a panel of its own.
var (
	claudeAIThinking      = regexp.MustCompile(`(?s)<antThinking>.*?</antThinking>[ \t]*\n?`)
	claudeAIArtifactOpen  = regexp.MustCompile(`<antArtifact\b[^>]*>\n?`)
	claudeAIArtifactTitle = regexp.MustCompile(`\btitle="([^"]*)"`)
	claudeAIArtifactClose = regexp.MustCompile(`\n?</antArtifact>`)
	// claudeAIArtifactBlock is an artifact whole, with the blank lines
	// around it; claudeAIArtifactID is its identifier.
	claudeAIArtifactBlock = regexp.MustCompile(`(?s)\s*<antArtifact\b([^>]*)>\n?(.*?)\n?</antArtifact>\s*`)
	claudeAIArtifactID    = regexp.MustCompile(`\bidentifier="([^"]*)"`)
)

// claudeAITagArtifacts takes the artifacts an older export's answer
// writes into its text out of it: each is the whole of a version of the
// artifact its identifier names, written to docs as the artifacts tool's
// rewrite is (see claudeAIArtifact). It returns the text left and the
// ids of the artifacts written, in order; an artifact without an
// identifier stays in the text (see claudeAIUnmark).
func claudeAITagArtifacts(docs map[string]*chatDoc, conv, text string) (string, []string) {
	if !strings.Contains(text, "<antArtifact") {
		return text, nil
	}
	var wrote []string
	text = claudeAIArtifactBlock.ReplaceAllStringFunc(text, func(block string) string {
		m := claudeAIArtifactBlock.FindStringSubmatch(block)
		id := claudeAIArtifactID.FindStringSubmatch(m[1])
		if id == nil || strings.TrimSpace(id[1]) == "" {
			return block
		}
		title := ""
		if t := claudeAIArtifactTitle.FindStringSubmatch(m[1]); t != nil {
			title = t[1]
		}
		if w := claudeAIWrite(docs, conv, id[1], title, m[2]); w != "" && !slices.Contains(wrote, w) {
			wrote = append(wrote, w)
		}
		return "\n\n"
	})
	return strings.TrimSpace(text), wrote
}

// claudeAIUnmark is an answer without that markup: the thinking is
// dropped, an artifact keeps its title (a line of its own) and content.
func claudeAIUnmark(text string) string {
	if !strings.Contains(text, "<ant") {
		return text
	}
	text = claudeAIThinking.ReplaceAllString(text, "")
	text = claudeAIArtifactOpen.ReplaceAllStringFunc(text, func(tag string) string {
		if m := claudeAIArtifactTitle.FindStringSubmatch(tag); m != nil && strings.TrimSpace(m[1]) != "" {
			return strings.TrimSpace(m[1]) + "\n"
		}
		return ""
	})
	return strings.TrimSpace(claudeAIArtifactClose.ReplaceAllString(text, ""))
}

// claudeAIBranch is the set of the messages on the branch the user sees
// of a conversation whose messages name their parents
// (parent_message_uuid), nil for an older export's list, which is one
// branch. A newer export lists every branch (an edited prompt, a
// regenerated answer) in one list; the one the user sees ends at
// current_leaf_message_uuid, or when the export does not name it, at the
// last message listed (CherryHQ/cherry-studio AnthropicImporter reads
// it so). The root's parent is a uuid no message has.
func claudeAIBranch(c claudeAIConversation) map[string]bool {
	parents := make(map[string]string, len(c.ChatMessages))
	for _, m := range c.ChatMessages {
		if m.Parent != "" && m.UUID != "" {
			parents[m.UUID] = m.Parent
		}
	}
	if len(parents) == 0 {
		return nil
	}
	leaf := c.CurrentLeaf
	if _, ok := parents[leaf]; !ok {
		leaf = c.ChatMessages[len(c.ChatMessages)-1].UUID
	}
	branch := make(map[string]bool)
	for id := leaf; id != "" && !branch[id]; id = parents[id] {
		branch[id] = true
	}
	return branch
}

// readClaudeAI reads a Claude.ai conversation's messages in order.
func readClaudeAI(x *chatExport, raw json.RawMessage) error {
	var c claudeAIConversation
	if err := json.Unmarshal(raw, &c); err != nil {
		return err
	}
	if c.UUID == "" {
		return errors.New("no uuid")
	}
	_, last, _ := parseDate(c.CreatedAt, x.fc.loc)
	branch := claudeAIBranch(c)
	docs := map[string]*chatDoc{} // the artifacts written so far
	for _, m := range c.ChatMessages {
		if branch != nil && !branch[m.UUID] {
			continue // a branch the user left
		}
		if _, t, ok := parseDate(m.CreatedAt, x.fc.loc); ok && !t.IsZero() {
			last = t
		}
		var role string
		switch m.Sender {
		case "human":
			role = "user"
		case "assistant":
			role = "assistant"
		default:
			x.reported.report(x.fc, 0, "sender "+strconv.Quote(m.Sender))
			continue
		}
		if m.UUID == "" {
			x.reported.report(x.fc, 0, "a message without a uuid")
			continue
		}
		text := m.Text
		var wrote []string // the artifacts the message wrote, in order
		if len(m.Content) > 0 {
			// The blocks, when there are any: text is their flat copy,
			// reasoning and tool use included.
			var texts []string
			for _, b := range m.Content {
				switch {
				case b.Type == "text":
					texts = append(texts, b.Text)
				case b.Type == "tool_use":
					if id := claudeAIArtifact(docs, c.UUID, b.Name, b.Input); id != "" && !slices.Contains(wrote, id) {
						wrote = append(wrote, id)
					}
				case !claudeAIQuietBlocks[b.Type]:
					x.reported.report(x.fc, 0, "content block "+strconv.Quote(b.Type))
				}
			}
			text = strings.Join(texts, "\n")
		}
		if role == "assistant" {
			var inline []string
			text, inline = claudeAITagArtifacts(docs, c.UUID, text)
			for _, id := range inline {
				if !slices.Contains(wrote, id) {
					wrote = append(wrote, id)
				}
			}
			text = claudeAIUnmark(text)
		} else if uploads := claudeAIUploads(m); len(uploads) > 0 {
			if strings.TrimSpace(text) != "" {
				uploads = append([]string{text}, uploads...)
			}
			text = strings.Join(uploads, "\n")
		}
		if err := x.emit(claudeAIAgent, c.UUID, m.UUID, role, c.Name, text, "", last); err != nil {
			return err
		}
		// Each artifact the answer wrote, as it stands at its end, after
		// the answer's words.
		for _, id := range wrote {
			d := docs[id]
			if err := x.emit(claudeAIAgent, c.UUID, m.UUID+":"+id, role, c.Name, d.text(), d.subject, last); err != nil {
				return err
			}
		}
	}
	return nil
}

// claudeAIProject is one project of a Claude.ai export, as public
// readers of the export list its fields: {uuid, name, description,
// is_private, is_starter_project, prompt_template (the project's
// instructions), created_at, updated_at, creator, docs: [{uuid, filename,
// content, created_at}] (the files the user added to its knowledge)}.
type claudeAIProject struct {
	UUID           string `json:"uuid"`
	Name           string `json:"name"`
	Description    string `json:"description"`
	Starter        bool   `json:"is_starter_project"`
	PromptTemplate string `json:"prompt_template"`
	CreatedAt      string `json:"created_at"`
	UpdatedAt      string `json:"updated_at"`
	Docs           []struct {
		UUID      string `json:"uuid"`
		Filename  string `json:"filename"`
		Content   string `json:"content"`
		CreatedAt string `json:"created_at"`
	} `json:"docs"`
}

// notClaudeAIProjects is the problem of a projects file of another shape.
const notClaudeAIProjects = "not a Claude.ai export's projects (a JSON list of projects, or one project, with a uuid): skipped"

// readClaudeAIProjects reads the projects of a Claude.ai export, a list
// decoded one project at a time, or one project (projects/<uuid>.json).
func readClaudeAIProjects(fc *fileCtx, br *bufio.Reader) error {
	x := &chatExport{fc: fc}
	dec := json.NewDecoder(br)
	if first, _ := firstByte(br); first == '{' {
		var p claudeAIProject
		if err := dec.Decode(&p); err != nil {
			fc.problem(0, notClaudeAIProjects+" ("+chatErr(err)+")")
			return nil
		}
		return x.claudeAIProject(p)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		fc.problem(0, notClaudeAIProjects)
		return nil
	}
	for n := 0; dec.More(); n++ {
		if err := fc.ctx.Err(); err != nil {
			return err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if n == 0 {
				fc.problem(0, notClaudeAIProjects+" ("+trimErr(err)+")")
				return nil
			}
			fc.problem(0, fmt.Sprintf("cut short after projects[%d]: the rest is not read (%s)", n-1, trimErr(err)))
			return nil
		}
		var p claudeAIProject
		if err := json.Unmarshal(raw, &p); err != nil {
			fc.problem(0, fmt.Sprintf("projects[%d]%s is malformed (%s): skipped", n, chatID(raw), chatErr(err)))
			continue
		}
		if err := x.claudeAIProject(p); err != nil {
			return err
		}
	}
	return nil
}

// firstByte is the first byte of br after white space, left unread.
func firstByte(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		if b != ' ' && b != '\t' && b != '\n' && b != '\r' {
			return b, br.UnreadByte()
		}
	}
}

// claudeAIProject makes the records of one project the user made: its
// instructions (description and prompt_template), at its last update,
// and each doc under its file name, at its creation, all the user's,
// titled with the project. The project Claude.ai makes for every account
// as an example (is_starter_project) is not theirs and not read.
func (x *chatExport) claudeAIProject(p claudeAIProject) error {
	if p.Starter || p.UUID == "" {
		return nil
	}
	conv := "project:" + p.UUID
	_, created, _ := parseDate(p.CreatedAt, x.fc.loc)
	at := created
	if _, t, ok := parseDate(p.UpdatedAt, x.fc.loc); ok && !t.IsZero() {
		at = t
	}
	var parts []string
	for _, s := range []string{p.Description, p.PromptTemplate} {
		if strings.TrimSpace(s) != "" {
			parts = append(parts, s)
		}
	}
	if err := x.emitID(claudeAIAgent, conv, conv, "user", p.Name, strings.Join(parts, "\n"), "", at); err != nil {
		return err
	}
	for _, d := range p.Docs {
		if d.UUID == "" || strings.TrimSpace(d.Content) == "" {
			continue
		}
		when := created
		if _, t, ok := parseDate(d.CreatedAt, x.fc.loc); ok && !t.IsZero() {
			when = t
		}
		text := d.Content
		if name := strings.TrimSpace(d.Filename); name != "" {
			text = name + "\n" + text
		}
		if err := x.emitID(claudeAIAgent, conv, conv+":"+d.UUID, "user", p.Name, text, "", when); err != nil {
			return err
		}
	}
	return nil
}
