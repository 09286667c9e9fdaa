package ingest

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/redact"
	"github.com/nova-recall/nova/truncate"
)

// Placeholders that stand in for content a reader or cleaner removed.
const (
	binaryMark   = "[binary]"
	imageMark    = "[image]"
	audioMark    = "[audio]"
	documentMark = "[document]"
	// cutMark ends a long string of an agent's line cut to fit
	// maxLineBytes (see shrinker).
	cutMark = "[cut]"
)

var (
	// imageRef is how Claude Code's and Codex's prompts name an image
	// pasted into them ("[Image #2] the legend overlaps"), the message
	// holding the image itself: the name reads as imageMark, and the
	// image is not marked a second time.
	imageRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[Image #\d+\]`) })
	// dataURL matches a base64 data URL (data:image/png;base64,...).
	dataURL = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bdata:[a-z]+/[a-z0-9.+-]+(?:;[a-z0-9=.+-]+)*;base64,[A-Za-z0-9+/_-]*={0,2}`)
	})
	// base64Run matches candidate runs of base64 (or base64url)
	// characters: one or more segments of 60+ such characters, which may
	// be wrapped over lines as PEM and MIME do (a last line shorter than
	// 60 characters is left: it cannot be told from a word on its own
	// line). StripBinary decides which candidates are blobs.
	base64Run = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:[A-Za-z0-9+/_-]{60,}={0,2}(?:\r?\n)?)+`) })
)

// minBinaryRun is the shortest run of base64 characters StripBinary treats
// as an encoded blob. Hashes (64 hex characters) and long identifiers stay.
const minBinaryRun = 200

// StripBinary replaces encoded binary payloads in text with [binary]:
// base64 data URLs of any length and runs of more than 200 base64
// characters that mix letters and digits (pasted images, archives,
// certificates, encoded tool payloads). They carry no meaning for recall
// and would swamp the index.
func StripBinary(text string) string {
	if hasDataScheme(text) {
		text = dataURL().ReplaceAllString(text, binaryMark)
	}
	if !hasBase64Run(text, 60) {
		return text
	}
	return base64Run().ReplaceAllStringFunc(text, func(m string) string {
		body := strings.TrimRight(m, "\r\n")
		if len(body) <= minBinaryRun || !redact.MixesLettersAndDigits(body) {
			return m
		}
		// Keep the line break that ended the run so the next line of
		// text does not run into the placeholder.
		return binaryMark + m[len(body):]
	})
}

// hasDataScheme reports whether "data:" appears in text in any case, the
// cheap test before the data-URL pattern: lowering the whole text to look
// for it copied every record a build reads.
func hasDataScheme(text string) bool {
	for i := 4; i < len(text); i++ {
		j := strings.IndexByte(text[i:], ':')
		if j < 0 {
			return false
		}
		i += j
		if strings.EqualFold(text[i-4:i], "data") {
			return true
		}
	}
	return false
}

// hasBase64Run reports whether text has n consecutive base64 characters,
// the cheap test before the regular expression looks for whole runs.
func hasBase64Run(text string, n int) bool {
	run := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-' {
			run++
			if run >= n {
				return true
			}
			continue
		}
		run = 0
	}
	return false
}

// cleanText is the last step of every transcript reader. Secrets are
// redacted before binary payloads are stripped: a secret that is itself
// base64-like (a PEM body, a long JWT) must be counted and removed whole,
// not half-replaced by [binary] and half left in place.
func cleanText(text string) (string, int) {
	text, n := redact.Text(text)
	return strings.TrimSpace(StripBinary(text)), n
}

// redactMetadata redacts the secrets in the fields of rec other than its
// text, which every reader redacts itself: a title, a heading, a tag, a
// subject or a project (the last folder of a session's working
// directory, which may be named for a key) is indexed, searched and
// returned as the text is, and a
// Markdown heading also names the record's id (notes.md#rotate-sk-...).
// The id is fileCtx.emit's to redact (redact.ID).
func redactMetadata(rec *memory.Record) {
	rec.Redactions += redact.Fields(&rec.Title, &rec.Subject, &rec.Project) + redact.List(&rec.Tags) + redact.List(&rec.HeadingPath)
}

// stateText redacts a text a reader keeps in its cursor state (a
// session's title, which names the records read after it): the state is
// stored with the index, beside records that hold no secret.
func stateText(s string) string {
	s, _ = redact.Text(strings.TrimSpace(s))
	return s
}

// hasContent reports whether text says anything once the placeholders a
// reader leaves behind are ignored: a message that was only an image or
// only a pasted key is not worth a record.
func hasContent(text string) bool {
	for _, mark := range []string{imageMark, audioMark, documentMark, binaryMark, redact.Mark} {
		text = strings.ReplaceAll(text, mark, "")
	}
	return strings.TrimSpace(text) != ""
}

// normalizeSpace collapses runs of white space to single spaces, for
// comparing texts that differ only in layout.
func normalizeSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// maxToolSummary bounds the argument shown in a tool-call summary.
const maxToolSummary = 160

// maxToolLines bounds the tool-call summaries attached to one message.
const maxToolLines = 10

// toolArgKeys are the arguments that best say what a tool call did, in
// order of preference (absolute_path, dir_path and paths: Gemini CLI's
// file tools; glob_pattern: Cursor's Glob, beside its target_directory;
// skill: Claude Code's Skill tool, whose name is what a user asks after
// when they ask which skill did something).
var toolArgKeys = []string{"command", "cmd", "file_path", "absolute_path", "dir_path", "pattern", "glob_pattern", "query", "url", "path", "paths", "skill", "description"}

// toolNameArgs are tools whose telling argument has a name too common
// for toolArgKeys, by tool name: the skill a Gemini CLI activate_skill
// or a Hermes skill_view call loads is its "name" (Hermes' file_path is
// then only a file of that skill).
var toolNameArgs = map[string]string{"activate_skill": "name", "skill_view": "name"}

// toolSummary returns a one-line summary of a tool call, "[tool: name
// arg]", where arg is the tool's own of toolNameArgs, else the first of
// toolArgKeys in the call's input (a command given as a list of words is
// joined), cut to 160 characters. The input itself, which can be a whole
// file, is never kept.
func toolSummary(name string, input map[string]json.RawMessage) string {
	if k, ok := toolNameArgs[strings.TrimSpace(name)]; ok {
		if arg := jsonArg(input[k]); arg != "" {
			return formatToolSummary(name, arg)
		}
	}
	return formatToolSummary(name, toolArg(input))
}

// toolArg returns the first of toolArgKeys present in a tool call's input.
func toolArg(input map[string]json.RawMessage) string {
	for _, k := range toolArgKeys {
		if arg := jsonArg(input[k]); arg != "" {
			return arg
		}
	}
	return ""
}

// formatToolSummary formats "[tool: name arg]" with arg redacted, on one
// line and cut to maxToolSummary characters. Redaction comes first: a
// secret cut in two loses the shape that finds it, and the summary waits
// in the file's stored cursor until the answer it belongs to is read.
func formatToolSummary(name, arg string) string {
	// Cursor has written a name with the start of its arguments after it
	// ("Grep path\n/Users/..."): the name is the first word.
	if words := strings.Fields(name); len(words) > 0 && strings.Contains(name, "\n") {
		name = words[0]
	}
	name = strings.TrimSpace(name)
	if name == "" {
		name = "unknown"
	}
	arg, _ = redact.Text(arg)
	arg = normalizeSpace(arg)
	if utf8.RuneCountInString(arg) > maxToolSummary {
		arg = truncate.Runes(arg, maxToolSummary-1) + "…"
	}
	if arg == "" {
		return memory.ToolSummaryPrefix + name + "]"
	}
	return memory.ToolSummaryPrefix + name + " " + arg + "]"
}

// jsonArg renders a tool argument: a string as is, a list of strings
// joined by spaces, anything else as "".
func jsonArg(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return strings.Join(list, " ")
	}
	return ""
}

// appendTools adds tool-call summaries to a message text, one per line,
// keeping at most maxToolLines and saying how many more there were
// (more counts summaries already left out).
func appendTools(text string, tools []string, more int) string {
	if len(tools) == 0 {
		return text
	}
	var b strings.Builder
	b.WriteString(text)
	for i, t := range tools {
		if i == maxToolLines {
			more += len(tools) - maxToolLines
			break
		}
		b.WriteString("\n")
		b.WriteString(t)
	}
	if more > 0 {
		b.WriteString("\n" + memory.ToolSummaryPrefix + "+" + strconv.Itoa(more) + " more]")
	}
	return b.String()
}
