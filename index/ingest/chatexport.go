package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
//     [{type: text, text}, {type: voice_note, transcript} (a prompt
//     spoken in voice mode), thinking, tool_use, tool_result...],
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
// own words, and its memories.json (claudeAIMemoriesName) the memory
// Claude.ai keeps of the user, read as other agents' memory notes are.
const chatExportName = "conversations*.json"

// claudeAIMemoriesName is the include glob of a Claude.ai export's
// memories (see readClaudeAIMemories), or a copy a browser renamed.
const claudeAIMemoriesName = "memories*.json"

// claudeAIMemoriesFile reports whether the file at p (a path, or one
// relative to its source) is a Claude.ai export's memories.
func claudeAIMemoriesFile(p string) bool {
	return matchGlobs([]string{claudeAIMemoriesName}, p)
}

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
// or a Claude.ai export's projects or memories.
func readChatExport(fc *fileCtx) error {
	if claudeAIMemoriesFile(fc.rel) {
		return readClaudeAIMemories(fc)
	}
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
