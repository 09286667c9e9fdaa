package ingest

// Version names the reading rules (what each reader extracts from a
// file). An index built under other rules is read again from scratch:
// bump it whenever a reader changes what it produces.
//
// ingest-v2: every Codex message whatever its phase, compaction
// summaries, one Claude Code record per assistant text line, session
// titles, binary content skipped, gitleaks redaction rules.
//
// ingest-v3: the transcript shapes of 2025-2026 builds under
// testdata/shapes/drift (Claude Code placeholders, notifications, IDE
// context, slash-command arguments, queued prompts, compaction summaries,
// replayed lines, sub-agent prompts, words in tool results; Codex
// contextual fragments and image labels), NUL padding, TOML front matter,
// dates without seconds.
//
// ingest-v4: Codex request_user_input answers, realtime voice
// transcripts, sub-agent rollouts (copied parent history skipped, prompts
// the agent's); Claude Code ExitPlanMode plans; redaction of text whose
// lower case changes length (Ⱥ, the Kelvin sign); the record appended
// after a line a crash cut short (no NUL padding) is read.
//
// ingest-v5: a source's agent names the agent of an agent kind's
// sessions and notes (they were always of the kind); an OpenClaw
// workspace's notes carry the source's sourceSet; a Hermes home's memory
// entries are of source set notes (they were transcripts').
//
// ingest-v6: Hermes' multimodal messages (parts as JSON after a
// sentinel) give their text; Gemini CLI's history sync keeps the turns a
// compression summarized, its summary is the assistant's, its session
// context and tool responses are not prompts; Aider's fences hold
// "#### " lines (and a reply's prose its headings), its tool output of
// several lines is dropped whole, and a history in a repository's top
// folder is read.
//
// ingest-v7: Hermes sessions a compression split are one conversation
// keyed by the first; a delegated sub-agent's session is a conversation
// of its own beside its main session's, its prompts the main agent's.
//
// ingest-v8: the turns a Hermes compression carried into the next session
// of its conversation are read once, from the session that first had them.
//
// ingest-v9: Codex answers with a memory citation or a proposed plan are
// one record without the markup, and its /review hand-back and delivered
// messages are not prompts (an injected_message event is); Claude Code's
// forked sessions leave out the turns they copied from the parent, its
// idle recaps (away_summary) and brief-mode SendUserMessage words are the
// assistant's.
//
// ingest-v10: a Codex /review is the user's request and its findings the
// assistant's answer, a /goal objective is the user's once, older
// <citation> and 【F:path†L】 markup is cleaned, and an answer of several
// text items is one record; Claude Code's plan handoff prompt loses its
// pointer and hint; a Hermes summary carried from an earlier compression
// is read once; an indented "> " or "#### " line is not Aider's own, and
// a line of spaces does not end a message of its.
//
// ingest-v11: Markdown notes split lines on a lone CR, take an empty or
// "..."-closed front matter block as one, a list of one for a field's
// value, "#"-prefixed tags in a tag string without the "#", and a time
// offset written with a space or without a colon; code fences close as
// CommonMark's do, headings inside %% and HTML comments open no section
// and a heading's trailing "#" needs a space before it; JSONL project,
// session, conversation and subject may be numbers; README.MD is a note.
// Links to a source folder are followed, and NOVA_HOME inside a source is
// not read.
//
// ingest-v12: a Markdown heading may be indented up to three spaces.
// Redaction: a secret in a heading is gone from the record id too;
// tokens before prose punctuation, sshpass and registry login -p,
// XML elements named for a secret and escaped-JSON Authorization
// headers are redacted, as are the titles readers keep in their state;
// code copying a variable into a secret-named field no longer is.
// Transcripts: Claude Code's compaction agent is not read, nor the turns
// a resumed session or a forked Codex thread copies from one whose file
// is there; a session in a Claude Code worktree is of the repository's
// project.
//
// ingest-v13: Markdown as CommonMark reads it where notes differed (a
// "---" after code, a thematic break or a list is no setext underline; a
// fence on a list item's line is code), headings as their rendered text,
// Logseq pages (properties, journal names, heading blocks, its own ids
// left out), #tags in the text, the dates of updated/lastmod, of a
// Zettelkasten name and of a dated heading, front matter times without
// an offset in the note's zone, and a note's text before a crash's NUL
// padding. Redaction: letter-only Authorization credentials, secrets in
// JSON escaped twice and an AWS secret right after its key id.
//
// ingest-v14: JSONL subjects are folded (capitals, spacing, Unicode form)
// and dates may be Unix seconds or milliseconds or YYYYMMDD; timestamps as
// Ruby, Go and PostgreSQL print them are read everywhere; a task board's
// sections are keyed without the board title's date, a repeated heading
// numbered. Transcripts: reasoning written inline (Hermes, OpenClaw,
// Aider) is not the answer; OpenClaw's channel metadata, reply directives
// and session startup, Gemini CLI's editor context, Hermes' background
// review turns and Aider's blank prompts are not dialogue; an Aider reply
// keeps its blockquotes; a legacy Gemini recording cut short keeps the
// messages before the cut; Gemini CLI's file tools' paths are in their
// summaries.
// ingest-v15: a JSONL subject's key is folded as the analyzer folds text
// (lexical.Normalize): Latin accents, invisible format characters and
// optional marks no longer make two subjects of one. Chunks are cut
// between characters, keep code blocks, tables and long words whole and
// drop invisible ends; tags skip negated and code words; source sets and
// lifecycles are matched whatever their capitals.
// ingest-v16: redaction also takes passwords holding '&' or ';', values
// in Markdown emphasis and tables, name/value pairs (Kubernetes, ECS,
// CloudFormation, .NET), qualified labels in prose (API key: ...), CJK
// labels (密码：...), cookies, Logseq properties and more clients'
// password flags; a record whose own id ends like a piece's ("x#2") has
// a chunk id of its own (memory.ChunkID); a markdown source skips
// node_modules; a claude-code source also reads Claude Code's auto memory
// (<project>/memory/*.md) as the agent's notes.
// ingest-v17: newer Codex and Claude Code transcripts: Codex's hidden
// user-role context (plugins, skills, hook and goal prompts, internal
// context, message-board notices, the compaction summary) and its helper
// threads (compaction, memory consolidation, guardian) are not the
// user's words; a Codex web search names its queries and pages; Claude
// Code's agent-team messages are the assistant's, without their
// envelope; its MCP, webhook and fork notices are dropped; its
// prompt-suggestion agent is not read; the Codex turns a user rolled back
// (thread_rolled_back) are not read; a prompt Claude Code wrote only in
// its queue (typed while a turn ran, taken in by it) is the user's, and
// the prompts it fires itself (scheduled tasks, /loop wake-ups) are not.
// A markdown source skips macOS's
// AppleDouble files (._note.md) and Emacs' lock links (.#note.md).
// ingest-v18: a Claude Code prompt the running turn took in is kept when
// the file ends before any reply; the prompt Claude Code sends itself to
// resume a cut-off turn is dropped; a /btw aside's file gives only its
// question and answer, not the replayed session; Codex messages between
// agents (inter_agent_communication lines, and the JSON message items of
// earlier builds) are the assistant's words and count as turns.
// ingest-v19: Cursor's agent transcripts (source kind cursor); Gemini
// CLI's project memory (tmp/<project>/memory/*.md); OpenClaw's delivery
// mirrors and CLI-backend copies of a reply are not read again, its
// runtime event lines are cut from prompts and the reply to a sub-agent's
// announcement is the assistant's; notes read Obsidian callouts, links
// to headings and embeds as Obsidian shows them, drop Logseq's hidden
// properties and block ids on headings, title a Logseq page by the name
// Logseq gives it, and skip a vault's templates folder, Logseq's page
// copies and the Excalidraw banner.
// ingest-v20: Obsidian canvases (.canvas) are read, one memory per text
// card; a note's sections are titled with its name and aliases; SSH2
// private keys, Slack refresh tokens, Hugging Face tokens with digits and
// keys set without "=" (set -gx, setenv, setx, npm config set, git
// config, gh secret set, ...) are redacted; a slash command Claude Code
// 2.1 runs itself (system local_command), a Codex "!" shell command and
// a Gemini CLI shell-mode command are the user's "/name args" and
// "!command", their output dropped.
// ingest-v21: Cursor's plain-text transcripts (agent-transcripts/*.txt)
// are read, and a sub-agent's own transcript is read as the sub-agent's;
// notes exported from Notion (page ids out of names, properties as dates
// and tags, links as their words), Bear (#tags of several words#) and
// yarle (its Created at); a canvas's arrows, link and file cards; tokens
// broken across lines, a key's last lines, base64 of a private key and
// quoted curl -u passwords are redacted; a jsonl source reads a JSON
// array (or one pretty-printed object) as records, one per element.
// ingest-v22: Aider's own copies of a message as a prompt (/ask, /code,
// architect mode's plan to the editor), the linter's report /lint sends
// and /help's documentation are not the user's prompts; a source that
// reaches NOVA_HOME through a link does not read the index.
// ingest-v23: a compacted Claude Code session's summary is kept without
// its transcript pointer and resume orders, and a Codex local
// compaction's without the line that hands it to the model; chat-export
// turns and legacy Gemini messages are numbered within their
// conversation (so they have neighbours); task-board headings form one
// version chain whatever their capitals, spacing or Unicode form, are
// slugged in NFC, a card keeps its chain when it moves lane, and a
// board without a title chains only with its own dated copies (its
// sections' keys begin "untitled:"); Obsidian Kanban's Complete
// markers are dropped; jsonl
// reads RFC 2822 and RFC 9557 dates, text written as parts, numbers as
// titles and tags, a byte-order mark at the start of any line, and a
// line that is not UTF-8 (as Windows-1252, or with U+FFFD); the
// records of one line (a minified array) are each a record with
// neighbours, which incremental syncs before did not store rightly.
// ingest-v24: every source kind skips AppleDouble files, Emacs lock
// links, Safari's unfinished downloads and recycle bins; Google Keep
// notes and Day One entries (and Day One's Journal.json) are read, Day
// One text without Markdown escapes or photo links and with its place;
// front matter dates under other tools' keys (date created, created_at,
// 日期, 创建时间...), Obsidian Linter's long dates and CJK dates in
// values and file names; front matter tags split at CJK commas; HTML
// notes as text, tables row by row; a conflict copy's note titled by its
// original; task-board lanes in Chinese, Japanese and Korean and the
// Kanban plugin's localised markers; a naive time in a skipped DST hour
// as the clock shows it; an agent's line over 16 MiB read with its long
// string cut (at a word, never inside a secret); a record after long NUL
// padding kept; invisible characters inside a token redacted with it;
// Claude Code queued commands marked isMeta, bare local-command echoes
// and command output lines with a toolUseResult are no one's prompts;
// legacy Codex sessions (rollout-*.json) are read.
// ingest-v25: an id that redaction changed (a note named for a token, a
// record whose id is a key) gets a suffix from its path (and line), so
// two of them no longer collide and one of them is no longer dropped; a
// kept chunk's sourceId is redacted with it.
// ingest-v26: transcript drift (Codex: unattachable images and audio
// kept once as [image]/[audio], /review's reviewer thread and prompt not
// the user's; Claude Code: AskUserQuestion previews dropped, edited
// approved plans kept, SessionStart hook output and <tick> not prompts;
// Hermes, Gemini and OpenClaw notices, continue prompts, sub-agent tasks
// and gateway time prefixes); text in decomposed or full-width forms
// redacted as the index reads it; decomposed Hangul lanes and dates;
// tags keep combining marks; Unicode Encoding Conflict copies.
// ingest-v27: chat exports (ChatGPT without current_node read along its
// newest branch, citation markup dropped, canvas documents kept;
// Claude.ai's live branch only, antThinking dropped, artifacts kept); a
// project named for a secret is redacted.
// ingest-v28: chat export documents in versions (ChatGPT canvas updates,
// Claude.ai artifact updates and rewrites, one subject per document);
// Claude.ai pasted files and projects read.
// ingest-v29: Claude Code's image source and resize notes, hook feedback
// and skill bodies in unmarked user lines are not the user's words.
// ingest-v30: skill calls named (Claude Code, Gemini CLI, Hermes); Claude
// Code's [Image #N] as [image]; Cursor prompts after an image take their
// own time, Cursor's task-report requests dropped, its tool calls named.
// ingest-v31: Codex's [Image #N] as [image]; notes dated by more names
// (2026.03.05, March 5, 2026, week and month notes, journals/2026/03/05),
// front matter with full-width colons, CJK title keys and named days;
// sections headed by a day in words.
// ingest-v32: Cursor's MCP calls named, Gemini CLI's pasted images as
// [image] instead of their clipboard paths.
// ingest-v33: a note's inline #tags tag their own section (front matter,
// a tag line at the top or under the title still tag every section); a
// #include in an indented code block is no tag; a canvas card's tags
// once each; quarter notes (2026-Q1) dated; a day named with its month
// in the middle of a note's name ("Top 10 March 2026 ideas") no day.
// ingest-v34: notes' tags as Obsidian reads them: a #tag in a heading
// tags its section; none in math, an HTML comment or right after a code
// span; front matter's "tag:" read beside "tags:", a tag of digits alone
// dropped; a #tag after a no-break space; a $$ block's lines no heading.
// ingest-v35: Claude.ai's memories.json read as notes; its voice-mode
// prompts kept; Codex's session lines stored as payload artifacts
// (rollout-payloads/) read from there, and its newer replay markers quiet.
// ingest-v36: a /review in Codex's paginated rollouts (item_completed);
// Claude.ai project memories titled with their project; notes' tags:
// #a#b two tags, a tag after a table's pipe, emoji in tags, none in an
// HTML block, a front-matter tag with a space dropped.
// ingest-v37: notes' sections as CommonMark reads them: no heading in an
// HTML block, a setext heading's lines without their blanks, no setext
// underline after a table without outer pipes; a front matter title
// leads its sections' titles when the only H1 says other words.
// ingest-v38: "### ###" an empty heading; a paragraph opening with inline
// HTML, or after indented code, a setext heading; a fence indented four
// columns past its list item no fence.
// ingest-v39: text with invisible characters inside a word and no secret
// kept as written (redaction dropped them).
// ingest-v40: a heading's inline HTML tags and comments are no part of its
// title ("Setup <a id=...></a>" is "Setup").
// ingest-v41: HTML notes as Keep, Evernote, Notion and Joplin export them:
// the exporter's title, time and tags, checkboxes, pre as code, alt text.
const Version = "ingest-v41"
