package ingest

// The Claude.ai side of a chat export (see readChatExport): a
// conversation's live branch, artifacts, pasted files and projects.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

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
		// Transcript is a voice_note block's words: a prompt spoken in
		// voice mode.
		Transcript string `json:"transcript"`
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
	claudeAIThinking      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<antThinking>.*?</antThinking>[ \t]*\n?`) })
	claudeAIArtifactOpen  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<antArtifact\b[^>]*>\n?`) })
	claudeAIArtifactTitle = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\btitle="([^"]*)"`) })
	claudeAIArtifactClose = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\n?</antArtifact>`) })
	// claudeAIArtifactBlock is an artifact whole, with the blank lines
	// around it; claudeAIArtifactID is its identifier.
	claudeAIArtifactBlock = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)\s*<antArtifact\b([^>]*)>\n?(.*?)\n?</antArtifact>\s*`)
	})
	claudeAIArtifactID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bidentifier="([^"]*)"`) })
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
	text = claudeAIArtifactBlock().ReplaceAllStringFunc(text, func(block string) string {
		m := claudeAIArtifactBlock().FindStringSubmatch(block)
		id := claudeAIArtifactID().FindStringSubmatch(m[1])
		if id == nil || strings.TrimSpace(id[1]) == "" {
			return block
		}
		title := ""
		if t := claudeAIArtifactTitle().FindStringSubmatch(m[1]); t != nil {
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
	text = claudeAIThinking().ReplaceAllString(text, "")
	text = claudeAIArtifactOpen().ReplaceAllStringFunc(text, func(tag string) string {
		if m := claudeAIArtifactTitle().FindStringSubmatch(tag); m != nil && strings.TrimSpace(m[1]) != "" {
			return strings.TrimSpace(m[1]) + "\n"
		}
		return ""
	})
	return strings.TrimSpace(claudeAIArtifactClose().ReplaceAllString(text, ""))
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
				case b.Type == "voice_note":
					texts = append(texts, b.Transcript)
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

// claudeAIMemory is one entry of a Claude.ai export's memories.json: the
// memory of the account (conversations_memory) and of each project
// (project_memories, by project uuid), Markdown Claude.ai writes in
// sections ("**Work context**", "**Personal context**") and the user
// can edit.
type claudeAIMemory struct {
	ConversationsMemory string            `json:"conversations_memory"`
	ProjectMemories     map[string]string `json:"project_memories"`
	AccountUUID         string            `json:"account_uuid"`
}

// notClaudeAIMemories is the problem of a memories file of another shape.
const notClaudeAIMemories = "not a Claude.ai export's memories (a JSON list of {conversations_memory, project_memories}): skipped"

// readClaudeAIMemories reads a Claude.ai export's memories.json, a list
// of claudeAIMemory (one object in some exports). Claude.ai's memory is
// what it keeps of the user across conversations, read as the memory
// notes of other agents are (a Hermes home's, Claude Code's auto
// memory): a note of agent claude.ai for the account's memory and one
// for each project's, titled with the project's name when the export
// holds it (see claudeAIProjectNames), dated by the file, which holds no
// time. Each is of
// a subject (the account's, the project's), so that the memory of a
// later export, which rewrites it, supersedes the one before.
func readClaudeAIMemories(fc *fileCtx) error {
	raw, fi, err := readNote(fc, "memories file")
	if err != nil || raw == nil {
		return err
	}
	raw = bytes.TrimPrefix(raw, utf8BOM)
	var list []claudeAIMemory
	if err := json.Unmarshal(raw, &list); err != nil {
		var one claudeAIMemory
		if json.Unmarshal(raw, &one) != nil || (one.ConversationsMemory == "" && one.ProjectMemories == nil) {
			fc.problem(0, notClaudeAIMemories)
			return nil
		}
		list = []claudeAIMemory{one}
	}
	date := fi.ModTime().In(fc.loc).Format("2006-01-02") // the reader's zone, not time.Local
	var names map[string]string
	for _, m := range list {
		if len(m.ProjectMemories) > 0 {
			names = claudeAIProjectNames(fc)
			break
		}
	}
	emit := func(id, title, text string) error {
		text, redactions := cleanText(text)
		if !hasContent(text) {
			return nil
		}
		return fc.emit(memory.Record{
			ID: id, Text: text, Title: title, Date: date, Agent: fc.agent(claudeAIAgent),
			Path: fc.path, Line: 1, Kind: config.KindChatExport, Layer: "note", SourceSet: fc.noteSourceSet(),
			Subject: subjectKey("claude.ai " + id), Redactions: redactions,
		})
	}
	for _, m := range list {
		id := "memory:" + m.AccountUUID
		if err := emit(id, "Claude.ai memory", m.ConversationsMemory); err != nil {
			return err
		}
		// In project order, which every read of the file repeats.
		for _, p := range slices.Sorted(maps.Keys(m.ProjectMemories)) {
			title := "Claude.ai project memory"
			if name := names[p]; name != "" {
				title += ": " + name
			}
			if err := emit(id+":"+p, title, m.ProjectMemories[p]); err != nil {
				return err
			}
		}
	}
	return nil
}

// claudeAIProjectNames returns the names of the projects of the export
// whose memories fc reads, by uuid: memories.json names a project by its
// uuid only, and the export's projects (projects.json beside it, or
// projects/<uuid>.json in newer exports) give its name. A projects file
// that is missing or of another shape gives none; its own read reports
// it. Only the names are kept of projects that also hold every doc's
// text.
func claudeAIProjectNames(fc *fileCtx) map[string]string {
	names := map[string]string{}
	for _, p := range claudeAIProjectFiles(fc.path) {
		if fc.ctx.Err() != nil {
			break
		}
		claudeAIReadProjectNames(p, names)
	}
	return names
}

// claudeAIProjectFiles are the files that name the projects of the
// memories.json at memories: projects.json beside it, and each
// projects/<uuid>.json, in name order. They are its companions (see
// Companions): a project renamed retitles its memory.
func claudeAIProjectFiles(memories string) []string {
	dir := filepath.Dir(memories)
	paths := []string{filepath.Join(dir, "projects.json")}
	if entries, err := os.ReadDir(filepath.Join(dir, "projects")); err == nil {
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
				paths = append(paths, filepath.Join(dir, "projects", e.Name()))
			}
		}
	}
	return paths
}

// claudeAIReadProjectNames adds the names of the projects of the file at
// path (a list of projects, or one project) to names, one project at a
// time, up to the first that does not decode.
func claudeAIReadProjectNames(path string, names map[string]string) {
	f, err := openSource(path)
	if err != nil {
		return
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(len(utf8BOM)); bytes.Equal(head, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM))
	}
	type named struct {
		UUID string `json:"uuid"`
		Name string `json:"name"`
	}
	add := func(p named) {
		if name := stateText(p.Name); p.UUID != "" && name != "" {
			names[p.UUID] = name
		}
	}
	dec := json.NewDecoder(br)
	if first, _ := firstByte(br); first == '{' {
		var p named
		if dec.Decode(&p) == nil {
			add(p)
		}
		return
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return
	}
	for dec.More() {
		var p named
		if dec.Decode(&p) != nil {
			return
		}
		add(p)
	}
}
