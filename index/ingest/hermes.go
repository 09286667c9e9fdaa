package ingest

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// A Hermes home (NousResearch hermes-agent: ~/.hermes, and each profile's
// home under profiles/<name>/) keeps its conversations in state.db, a
// SQLite database in WAL mode that the agent writes while it runs, and
// what it remembers in memories/MEMORY.md and memories/USER.md.
//
// The database is read whole each time it changes (its write-ahead log
// included: see Companions), strictly read-only, through database/sql
// under the driver name "sqlite". Package ingest does not link a driver:
// novad links this package and must not carry SQLite; novactl links
// modernc.org/sqlite. Its schema grows with Hermes' versions, so the
// columns are probed: only those that exist are read, and the reasoning
// columns never are. One record per kept message: the user's and the
// assistant's words (active turns and the turns a compaction archived),
// the tool calls made before an answer as one-line summaries on it, a
// compaction summary as a record of layer "summary" (the prompt a
// carrier holds after it is the user's). Tool output, hidden
// (model-facing) messages, the turns Hermes starts by itself (display
// kind auto_continue), the notices Hermes writes in the user's role
// (a background process that ended, a sub-agent fan-out's results, the
// task list it puts back after a compression), the sessions of tools,
// cron jobs and kanban workers, the background review's prompts and the
// curator's replies to them, and the reasoning a model writes into its
// answer are dropped. The sessions a compression split are one
// conversation, keyed by the first, each turn in it once: the turns a
// compression carried into the next session are the earlier session's
// records (see markCopies); a sub-agent's session
// is a conversation of its own, its prompts the main agent's (see
// hermesLineage).
//
// A memory file holds entries separated by a line that is only "§";
// each entry is one note.

// Companions returns the files beside path that a reader of kind reads
// along with it, whose changes are changes of path: a Hermes database's
// write-ahead log (path + "-wal"; new messages sit there, leaving the
// database's own size and time alone, until a checkpoint copies them in);
// the .jsonl a legacy Gemini CLI recording is migrated to (the legacy
// file is not read once it exists, see readGeminiLegacy); a Cursor
// sub-agent's own transcript beside the copy under its parent's
// subagents/ folder, and the JSONL of a session an older Cursor wrote as
// plain text too (the copy, the text, is not read while it exists, see
// cursorCopy); the next day's save of a legacy Codex session (it is not
// read once that exists, see codexLegacyNext); the projects files of a
// Claude.ai export's memories.json, which name the projects its memories
// are titled with (claudeAIProjectFiles).
func Companions(kind, path string) []string {
	switch {
	case kind == config.KindCodex && codexLegacy(path):
		if next := codexLegacyNext(path); next != "" {
			return []string{next}
		}
		return nil
	case kind == config.KindCursor:
		return cursorCompanions(path)
	case kind == config.KindHermes && !hermesMemoryFile(path):
		return []string{path + "-wal"}
	case kind == config.KindGemini && strings.HasSuffix(path, ".json"):
		return []string{geminiMigrated(path)}
	case kind == config.KindChatExport && claudeAIMemoriesFile(path):
		return claudeAIProjectFiles(path)
	}
	return nil
}

// LastChange is when the file at p of a source of kind last changed: its
// modification time mod, or a companion's when that is later (see
// Companions), so that what Hermes wrote to its log counts as a change of
// its database in every freshness figure.
func LastChange(kind, p string, mod time.Time) time.Time {
	for _, c := range Companions(kind, p) {
		if fi, err := os.Stat(c); err == nil && fi.ModTime().After(mod) {
			mod = fi.ModTime()
		}
	}
	return mod
}

func hermesMemoryFile(p string) bool { return strings.EqualFold(path.Ext(p), ".md") }

// readHermes reads one file of a Hermes home: a memory file or a database.
func readHermes(fc *fileCtx) error {
	if hermesMemoryFile(fc.path) {
		return readHermesMemory(fc)
	}
	return readHermesDB(fc)
}

// hermesEntrySep is the line between two entries of a memory file.
const hermesEntrySep = "§"

// readHermesMemory makes one note of each entry of a memory file. An
// entry's id is its file and a digest of its text: Hermes replaces and
// removes entries, and an entry edited is a new memory.
func readHermesMemory(fc *fileCtx) error {
	raw, fi, err := readNote(fc, "memory file")
	if err != nil || raw == nil {
		return err
	}
	title := "Hermes memory"
	if strings.EqualFold(path.Base(fc.rel), "USER.md") {
		title = "Hermes user profile"
	}
	date := fi.ModTime().In(fc.loc).Format("2006-01-02") // the reader's zone, not time.Local
	used := map[string]int{}
	var entry []string
	start := 1
	flush := func() error {
		text, redactions := cleanText(strings.Join(entry, "\n"))
		entry = nil
		if !hasContent(text) {
			return nil
		}
		key := textKey(normalizeSpace(text))
		used[key]++
		if n := used[key]; n > 1 {
			key = fmt.Sprintf("%s~%d", key, n)
		}
		return fc.emit(memory.Record{
			ID: fc.rel + "#" + key, Text: text, Title: title, Date: date, Agent: fc.agent(config.KindHermes),
			Path: fc.path, Line: start, Kind: config.KindHermes, Layer: "note", SourceSet: fc.noteSourceSet(), Redactions: redactions,
		})
	}
	lines := strings.Split(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n")
	for i, line := range lines {
		if strings.TrimSpace(line) == hermesEntrySep {
			if err := flush(); err != nil {
				return err
			}
			start = i + 2
			continue
		}
		if len(entry) == 0 && strings.TrimSpace(line) == "" {
			start = i + 2
			continue
		}
		entry = append(entry, line)
	}
	return flush()
}

// hermesSession is what the reader uses of a sessions row.
type hermesSession struct {
	title, cwd string
	// skip is set on a session of a tool, a cron job or a kanban
	// worker: automation, not a conversation.
	skip bool
	// How the session came to be, as far as the schema records it (each
	// empty when its column is missing): its source, the session it was
	// made from, why it ended, and the lineage markers of its
	// model_config, each naming the session it was branched, delegated
	// or reset from.
	source, parent, endReason             string
	branchedFrom, delegateFrom, resetFrom string
}

// hermesLineage is where the records of a session go: the session that
// groups them, the conversation whose turns are their context, and
// whether that conversation is a sub-agent's.
type hermesLineage struct {
	session, conversation string
	subagent              bool
}

// hermesPlace is a session's lineage with the title and directory its
// records carry.
type hermesPlace struct {
	lineage    hermesLineage
	title, cwd string
}

// Hermes links sessions through parent_session_id (hermes_state*.py in
// NousResearch/hermes-agent). A compression ends a session with
// end_reason "compression" and goes on in a child: the same
// conversation. A child of such a session that is a branch, a sub-agent
// the session delegated to or a reset of it is not a continuation: its
// model_config marker (_branched_from, _delegate_from, _reset_from)
// names the session it was made from. A continuation copies its
// parent's model_config verbatim, markers included, so only a marker
// naming the parent itself counts (a sub-agent's continuation names the
// sub-agent's own parent). A tool's session is never a continuation.
const (
	hermesCompression = "compression"
	hermesSubagent    = "subagent" // the source of a delegated sub-agent's session
	// hermesMaxDelegation bounds the sub-agents of sub-agents followed to
	// the main session: a database whose delegations link in a circle
	// must not recurse for ever.
	hermesMaxDelegation = 16
)

// continues reports whether s continues its parent p (p's row) in the
// same conversation.
func (s *hermesSession) continues(p *hermesSession) bool {
	return p.endReason == hermesCompression && s.source != "tool" &&
		s.branchedFrom != s.parent && s.delegateFrom != s.parent && s.resetFrom != s.parent
}

// delegated reports whether s is a sub-agent's session: it carries the
// delegation marker (its own, or copied to a continuation of it), or
// Hermes gave it the sub-agents' source.
func (s *hermesSession) delegated() bool {
	return s.delegateFrom != "" || s.source == hermesSubagent
}

// setMarkers reads the lineage markers of a model_config: a JSON object
// whose markers are strings; anything else has none.
func (s *hermesSession) setMarkers(modelConfig string) {
	var cfg map[string]json.RawMessage
	if json.Unmarshal([]byte(modelConfig), &cfg) != nil {
		return
	}
	for key, dst := range map[string]*string{"_branched_from": &s.branchedFrom, "_delegate_from": &s.delegateFrom, "_reset_from": &s.resetFrom} {
		var v string
		if json.Unmarshal(cfg[key], &v) == nil {
			*dst = v
		}
	}
}

// chainRoot is the first session of the compression chain id belongs
// to: id itself when it continues nothing, when its parent is not in the
// database, or when the chain runs in a circle.
func (st *hermesState) chainRoot(id string) string {
	if path := st.continuationPath(id); len(path) > 0 {
		return path[0]
	}
	return id
}

// continuationPath is the sessions of the compression chain before id,
// its root first: none when id continues nothing, or when the chain runs
// in a circle (then each session is its own conversation).
func (st *hermesState) continuationPath(id string) []string {
	var path []string
	seen := map[string]bool{id: true}
	for cur := id; ; {
		s, ok := st.sessions[cur]
		if !ok || s.parent == "" {
			break
		}
		p, ok := st.sessions[s.parent]
		if !ok || !s.continues(&p) {
			break
		}
		if seen[s.parent] {
			return nil
		}
		seen[s.parent] = true
		path = append(path, s.parent)
		cur = s.parent
	}
	slices.Reverse(path)
	return path
}

// lineage is where the records of session id go. A compression chain
// is one conversation, keyed by its root. A sub-agent's chain is its own
// conversation, marked as a Claude Code sidechain is and grouped with
// the main session it was delegated from (the main session's own key, so
// a sub-agent of a sub-agent joins the main one).
func (st *hermesState) lineage(id string, depth int) hermesLineage {
	root := st.chainRoot(id)
	r := st.sessions[root]
	if !r.delegated() {
		return hermesLineage{session: root, conversation: root}
	}
	main := cmp.Or(r.parent, r.delegateFrom)
	if main == "" || main == root {
		return hermesLineage{session: root, conversation: root + "/sidechain", subagent: true}
	}
	owner := main
	if depth < hermesMaxDelegation {
		owner = st.lineage(main, depth+1).session
	}
	return hermesLineage{session: owner, conversation: owner + "/sidechain-" + root, subagent: true}
}

// hermesMessage is a kept messages row, and what parse makes of it.
type hermesMessage struct {
	id                 int64
	session, role      string
	content, toolCalls string
	time               time.Time
	// stamp is the timestamp column as stored (stamped: it has one),
	// compared exactly where time is rounded.
	stamp   float64
	stamped bool
	// summary is set by the _compressed_summary column.
	summary bool

	// Set by parse: the message's own words, the compaction summary it
	// is or carries, its tool calls, and its identity (hermesIdent).
	own, summaryText string
	isSummary        bool
	contentErr       error
	calls            []hermesToolCall
	callsErr         error
	ident            string
	// review is set on the background review's prompt.
	review bool
	// copy is set on a message a compression carried into a
	// continuation (markCopies): its words are the original's record;
	// summaryCopy on one whose compaction summary is an earlier
	// compression's, carried along (its summary is the original's record).
	copy, summaryCopy bool
}

// parse cleans m's content and reads its tool calls.
func (m *hermesMessage) parse() {
	var content string
	content, m.contentErr = hermesContent(m.content)
	m.own, m.summaryText, m.isSummary = hermesSummary(content, m.summary)
	m.own, m.summaryText = withoutTodoSnapshot(m.own), withoutTodoSnapshot(m.summaryText)
	if m.role == "user" && strings.HasPrefix(strings.TrimSpace(m.own), hermesReviewPrompt) {
		m.review = true
	}
	if hermesHarnessText(m.own) {
		m.own = ""
	}
	if m.role == "assistant" {
		// Hermes keeps the content as the model wrote it, reasoning
		// included (a copy of it goes to the reasoning column).
		m.own = withoutReasoning(m.own)
	}
	if m.role == "assistant" && strings.TrimSpace(m.toolCalls) != "" {
		if m.callsErr = json.Unmarshal([]byte(m.toolCalls), &m.calls); m.callsErr != nil {
			m.calls = nil // a list that failed half way summarizes nothing
		}
		if len(m.calls) > 0 && hermesStaleMarker().MatchString(m.own) {
			m.own = ""
		}
	}
	m.ident = hermesIdent(m.role, m.own, m.toolCalls, m.calls)
}

// hermesState is what one read of a database found.
type hermesState struct {
	sessions map[string]hermesSession
	messages []hermesMessage
	// noMessages is set when the database has no messages table.
	noMessages bool
}

// skipped reports whether m is not read: a message of a tool's or a cron
// job's session, or of none.
func (st *hermesState) skipped(m *hermesMessage) bool {
	return m.session == "" || st.sessions[m.session].skip
}

// Reading a live database may meet Hermes writing it: a read-only
// connection can get SQLITE_BUSY or a transient SQLITE_IOERR while the
// writer recovers or checkpoints. Hermes itself retries three times,
// 50 ms apart; so does the reader, backing off.
const (
	hermesAttempts = 3
	hermesBackoff  = 50 * time.Millisecond
)

// errHermesChanged means a database read without locks (see hermesDSN)
// changed while it was read: read it again, with locks.
var errHermesChanged = errors.New("the database changed while it was read")

// readHermesDB reads a Hermes state database. One that cannot be opened
// or read is an error (the caller reports it, and an index keeps its
// earlier memory); one without a messages table is a problem.
func readHermesDB(fc *fileCtx) error {
	if !slices.Contains(sql.Drivers(), "sqlite") {
		return errors.New("this program cannot read SQLite databases (Hermes' state.db): index this source with novactl")
	}
	var st *hermesState
	var err error
	for attempt := 1; ; attempt++ {
		st, err = loadHermes(fc.ctx, fc.path)
		if err == nil || attempt == hermesAttempts || !transientSQLite(err) {
			break
		}
		select {
		case <-fc.ctx.Done():
			return fc.ctx.Err()
		case <-time.After(time.Duration(attempt) * hermesBackoff):
		}
	}
	if err != nil {
		return fmt.Errorf("read Hermes database: %w", err)
	}
	if st.noMessages {
		fc.problem(0, "no messages table: not a Hermes state database")
		return nil
	}
	return emitHermes(fc, st)
}

// transientSQLite reports whether err is worth a second try: SQLITE_BUSY,
// SQLITE_LOCKED and SQLITE_IOERR (any extended code of them), or a
// database that changed under a read without locks. The driver's errors
// are known by their Code method, so this package does not link it.
func transientSQLite(err error) bool {
	if errors.Is(err, errHermesChanged) {
		return true
	}
	var coded interface{ Code() int }
	if !errors.As(err, &coded) {
		return false
	}
	switch coded.Code() & 0xff {
	case 5, 6, 10: // SQLITE_BUSY, SQLITE_LOCKED, SQLITE_IOERR
		return true
	}
	return false
}

// hermesDSN is the driver's name for a read-only connection to the
// database at p: mode=ro, and query_only so not even a pragma writes.
// With no write-ahead log or rollback journal beside it, nothing is
// writing it, and it is opened immutable: without locks or the shared
// memory file, so that reading it creates no -wal or -shm file in
// Hermes' home (a read-only connection to a WAL database creates both
// otherwise). loadHermes checks afterwards that it did not change.
func hermesDSN(p string, immutable bool) string {
	u := url.URL{Scheme: "file", OmitHost: true, Path: p}
	q := "mode=ro&_pragma=query_only(1)"
	if immutable {
		q += "&immutable=1"
	}
	return u.String() + "?" + q
}

// hermesFileExists reports whether p exists (a file that cannot be stat'ed for
// another reason counts as there).
func hermesFileExists(p string) bool {
	_, err := os.Lstat(p)
	return !errors.Is(err, fs.ErrNotExist)
}

// loadHermes reads what the reader needs of the database at p, in one
// read transaction.
func loadHermes(ctx context.Context, p string) (*hermesState, error) {
	immutable := !hermesFileExists(p+"-wal") && !hermesFileExists(p+"-journal")
	before, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", hermesDSN(p, immutable))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()
	st, err := queryHermes(ctx, tx)
	if err != nil {
		return nil, err
	}
	if immutable {
		after, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if hermesFileExists(p+"-wal") || hermesFileExists(p+"-journal") || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
			return nil, errHermesChanged
		}
	}
	return st, nil
}

// tableColumns returns the columns of table (none when it does not exist).
func tableColumns(ctx context.Context, tx *sql.Tx, table string) (map[string]bool, error) {
	rows, err := tx.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out[name] = true
	}
	return out, rows.Err()
}

// pickColumns returns the columns of want that cols has, and for each of want
// the index of its value in a row of them (-1: not there).
func pickColumns(cols map[string]bool, want []string) ([]string, []int) {
	var names []string
	at := make([]int, len(want))
	for i, w := range want {
		at[i] = -1
		if cols[w] {
			at[i] = len(names)
			names = append(names, `"`+w+`"`)
		}
	}
	return names, at
}

// Columns read, by position: the probe selects those that exist.
var (
	hermesSessionCols = []string{"id", "source", "title", "cwd", "git_repo_root", "parent_session_id", "end_reason", "model_config"}
	hermesMessageCols = []string{"id", "session_id", "role", "content", "tool_calls", "timestamp", "_compressed_summary"}
)

func queryHermes(ctx context.Context, tx *sql.Tx) (*hermesState, error) {
	st := &hermesState{sessions: map[string]hermesSession{}}
	mcols, err := tableColumns(ctx, tx, "messages")
	if err != nil {
		return nil, err
	}
	if len(mcols) == 0 {
		st.noMessages = true
		return st, nil
	}
	for _, c := range []string{"id", "session_id", "role"} {
		if !mcols[c] {
			return nil, fmt.Errorf("the messages table has no %s column", c)
		}
	}
	scols, err := tableColumns(ctx, tx, "sessions")
	if err != nil {
		return nil, err
	}
	if scols["id"] {
		names, at := pickColumns(scols, hermesSessionCols)
		err := scanRows(ctx, tx, "SELECT "+strings.Join(names, ", ")+" FROM sessions", len(names), func(v []any) {
			get := func(i int) string { return sqlString(v, at[i]) }
			s := hermesSession{title: get(2), cwd: get(4), source: get(1), parent: get(5), endReason: get(6)}
			if s.cwd == "" {
				s.cwd = get(3)
			}
			s.setMarkers(get(7))
			switch get(1) {
			case "tool", "cron", "kanban":
				// A tool integration's, a cron job's or a kanban
				// worker's run: automation (Hermes' own pickers hide
				// kanban and tool sessions, INTERNAL_LISTING_SOURCES).
				s.skip = true
			}
			st.sessions[get(0)] = s
		})
		if err != nil {
			return nil, err
		}
	}
	names, at := pickColumns(mcols, hermesMessageCols)
	where := []string{"role IN ('user', 'assistant')"}
	// active=0 marks a turn a compaction replaced; compacted=1 one it
	// archived, which stays part of the conversation.
	switch {
	case mcols["active"] && mcols["compacted"]:
		where = append(where, "(COALESCE(active, 1) = 1 OR COALESCE(compacted, 0) = 1)")
	case mcols["active"]:
		where = append(where, "COALESCE(active, 1) = 1")
	}
	if mcols["display_kind"] {
		// hidden: model-facing only; auto_continue: a turn Hermes
		// started by itself (an interrupted turn resumed, its request
		// quoted again; a loop's wake), which no one typed.
		where = append(where, "COALESCE(display_kind, '') NOT IN ('hidden', 'auto_continue')")
	}
	q := "SELECT " + strings.Join(names, ", ") + " FROM messages WHERE " + strings.Join(where, " AND ") + " ORDER BY id"
	err = scanRows(ctx, tx, q, len(names), func(v []any) {
		m := hermesMessage{
			session: sqlString(v, at[1]), role: sqlString(v, at[2]),
			content: sqlString(v, at[3]), toolCalls: sqlString(v, at[4]),
		}
		m.id, _ = sqlInt(v, at[0])
		m.stamp, m.stamped = sqlFloat(v, at[5])
		if secs := m.stamp; m.stamped && secs > 0 && secs < 1e11 {
			// Epoch seconds as a REAL hold about a microsecond: finer
			// digits are the float's, not the clock's.
			whole, frac := math.Modf(secs)
			m.time = time.Unix(int64(whole), int64(math.Round(frac*1e6))*1e3).UTC()
		}
		if n, ok := sqlInt(v, at[6]); ok && n != 0 {
			m.summary = true
		}
		st.messages = append(st.messages, m)
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// scanRows runs q and hands each row to use as n values of any type: a
// column Hermes (or a tool) filled with an unexpected type is converted,
// not an error.
func scanRows(ctx context.Context, tx *sql.Tx, q string, n int, use func([]any)) error {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		use(vals)
	}
	return rows.Err()
}

func sqlString(v []any, i int) string {
	if i < 0 {
		return ""
	}
	switch x := v[i].(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case nil:
		return ""
	default:
		return fmt.Sprint(x)
	}
}

func sqlFloat(v []any, i int) (float64, bool) {
	if i < 0 {
		return 0, false
	}
	switch x := v[i].(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	}
	return 0, false
}

func sqlInt(v []any, i int) (int64, bool) {
	f, ok := sqlFloat(v, i)
	return int64(f), ok
}

// Texts of the harness, not of the user or the assistant: the prompt of
// Hermes' background review of a conversation, the turn it writes when a
// compaction kept no user message, and the user-role notices it sends
// the model by itself (the user-role runtime scaffolding of
// _SYNTHETIC_USER_PREFIXES in NousResearch/hermes-agent
// agent/conversation_compression.py): a background process that ended
// or matched a watch pattern (its output: tool output), a sub-agent
// fan-out that finished (its results), and the nudges to go on after a
// reply cut short. The reply to a notice is the assistant's.
var hermesHarness = []string{
	hermesReviewPrompt,
	"Continue from the compressed conversation context above.",
	"[IMPORTANT: Background process ",
	"[ASYNC DELEGATION ",
	"[System: Your previous response was truncated",
	"[System: The previous response was cut off",
	"[System: Your previous tool call",
}

// hermesTodoSnapshot begins the task list Hermes puts back into the
// conversation after a compression (tools/todo_tool.py
// TODO_INJECTION_HEADER), a row of its own or appended to the last
// prompt: from it to the end of the text is the model's, not the
// person's (agent/compaction_display.py cuts it the same way).
const hermesTodoSnapshot = "[Your active task list was preserved across context compression]"

// withoutTodoSnapshot cuts the task list Hermes appended to text.
func withoutTodoSnapshot(text string) string {
	if i := strings.Index(text, hermesTodoSnapshot); i >= 0 {
		return strings.TrimSpace(text[:i])
	}
	return text
}

// hermesReviewPrompt begins the background review's prompts. Older builds
// wrote the review's turns into the session it reviewed; the curator's
// replies up to the next prompt are the review's too (Hermes strips them
// when it restores a session: _strip_background_review_harness).
const hermesReviewPrompt = "Review the conversation above and"

// hermesStaleMarker is an answer an older build kept as a bare "[tool]"
// marker beside its tool calls (#78148): no words.
var hermesStaleMarker = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[[A-Za-z_][A-Za-z0-9_.-]*\]$`) })

// Markers of a compaction summary: the prefixes Hermes has written
// before one (the current and the legacy one), the delimiter after which
// one was merged into a message, and the line that ends one.
const (
	hermesSummaryPrefix  = "[CONTEXT COMPACTION"
	hermesSummaryLegacy  = "[CONTEXT SUMMARY]:"
	hermesSummaryIntroTo = "avoid repeating it:"
	hermesMergedHeader   = "[PRIOR CONTEXT"
	hermesMergedSummary  = "[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]"
	hermesSummaryEnd     = "--- END OF CONTEXT SUMMARY"
)

// hermesSummary splits a compaction summary from the words of a message
// it was merged into: it returns the message's own text, the summary
// without its framing, and whether there is one.
func hermesSummary(text string, flagged bool) (own, summary string, ok bool) {
	t := strings.TrimSpace(text)
	switch {
	case strings.Contains(t, hermesMergedSummary):
		i := strings.Index(t, hermesMergedSummary)
		own, summary = t[:i], t[i+len(hermesMergedSummary):]
		if strings.HasPrefix(own, hermesMergedHeader) {
			if j := strings.IndexByte(own, '\n'); j >= 0 {
				own = own[j+1:]
			} else {
				own = ""
			}
		}
	case flagged || strings.HasPrefix(t, hermesSummaryPrefix) || strings.HasPrefix(t, hermesSummaryLegacy):
		summary = t
		// A carrier: the summary, the line that ends it, then the ask
		// it was merged with (hermes_state_rewind.py's composite
		// carrier), which is the message's own.
		if i := strings.Index(summary, hermesSummaryEnd); i >= 0 {
			if j := strings.IndexByte(summary[i:], '\n'); j >= 0 {
				own = summary[i+j+1:]
			}
		}
	default:
		return t, "", false
	}
	summary = strings.TrimSpace(summary)
	switch {
	case strings.HasPrefix(summary, hermesSummaryLegacy):
		summary = summary[len(hermesSummaryLegacy):]
	case strings.HasPrefix(summary, hermesSummaryPrefix):
		if i := strings.Index(summary, hermesSummaryIntroTo); i >= 0 {
			summary = summary[i+len(hermesSummaryIntroTo):]
		} else if i := strings.IndexByte(summary, '\n'); i >= 0 {
			summary = summary[i+1:]
		} else {
			summary = ""
		}
	}
	if i := strings.Index(summary, hermesSummaryEnd); i >= 0 {
		summary = summary[:i]
	}
	return strings.TrimSpace(own), strings.TrimSpace(summary), true
}

// hermesToolCall is one entry of an assistant message's tool_calls: the
// OpenAI shape (function.name, function.arguments as a JSON string), or
// a flat one.
type hermesToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// summary is the call's one-line summary (toolSummary). Arguments given
// as a JSON string are decoded; a string that is not a JSON object is
// the argument itself.
func (c *hermesToolCall) summary() string {
	name, args := c.Function.Name, c.Function.Arguments
	if name == "" {
		name, args = c.Name, c.Arguments
	}
	var s string
	if json.Unmarshal(args, &s) == nil {
		args = json.RawMessage(s)
	}
	var input map[string]json.RawMessage
	if json.Unmarshal(args, &input) != nil {
		return formatToolSummary(name, s)
	}
	return toolSummary(name, input)
}

// emitHermes makes the records of the kept messages, in message order.
func emitHermes(fc *fileCtx, st *hermesState) error {
	badCalls, firstBad := 0, ""
	badContent, firstBadContent := 0, ""
	for i := range st.messages {
		m := &st.messages[i]
		if st.skipped(m) {
			continue
		}
		m.parse()
		if m.contentErr != nil {
			if badContent++; firstBadContent == "" {
				firstBadContent = fmt.Sprintf("message %d: %s", m.id, m.contentErr)
			}
		}
		if m.callsErr != nil {
			if badCalls++; firstBad == "" {
				firstBad = fmt.Sprintf("message %d: %s", m.id, trimErr(m.callsErr))
			}
		}
	}
	st.markCopies()
	pending := map[string]*pendingTools{}
	places := map[string]hermesPlace{}
	// reviewing are the sessions in a turn of the background review.
	reviewing := map[string]bool{}
	for i := range st.messages {
		if i%256 == 0 {
			if err := fc.ctx.Err(); err != nil {
				return err
			}
		}
		m := &st.messages[i]
		if st.skipped(m) {
			continue
		}
		s := st.sessions[m.session]
		at, ok := places[m.session]
		if !ok {
			// A continuation Hermes published without a title or a
			// directory has its conversation's.
			root := st.sessions[st.chainRoot(m.session)]
			at = hermesPlace{st.lineage(m.session, 0), cmp.Or(s.title, root.title), cmp.Or(s.cwd, root.cwd)}
			places[m.session] = at
		}
		lin := at.lineage
		p := pending[m.session]
		if p == nil {
			p = &pendingTools{}
			pending[m.session] = p
		}
		// A copy goes through the turn's bookkeeping (the tool calls
		// pending for the next answer) but makes no record of its words.
		rec := func(role, text, id, layer string) error {
			if m.copy && layer == "dialogue" {
				return nil
			}
			msg := message{role: role, text: text, title: at.title, time: m.time, cwd: at.cwd, line: int(m.id)}
			r, ok := msg.record(fc, config.KindHermes, lin.session, id, lin.conversation)
			if !ok {
				return nil
			}
			r.Layer = layer
			return fc.emit(r)
		}
		id := m.session + ":" + strconv.FormatInt(m.id, 10)
		if m.isSummary && m.summaryText != "" && !m.summaryCopy {
			if err := rec("assistant", m.summaryText, id+"#summary", "summary"); err != nil {
				return err
			}
		}
		switch m.role {
		case "user":
			*p = pendingTools{}
			reviewing[m.session] = m.review
			// No one types into a sub-agent's session: its prompts are the
			// task the main agent gave it (Claude Code's sidechain rule).
			role := "user"
			if lin.subagent {
				role = "assistant"
			}
			if err := rec(role, m.own, id, "dialogue"); err != nil {
				return err
			}
		case "assistant":
			if reviewing[m.session] {
				continue // the curator's reply to the review's prompt
			}
			if strings.TrimSpace(m.own) != "" {
				if err := rec("assistant", p.take(m.own), id, "dialogue"); err != nil {
					return err
				}
			}
			for i := range m.calls {
				p.add(m.calls[i].summary())
			}
		}
	}
	if badContent > 0 {
		fc.problem(0, fmt.Sprintf("content of %d messages is not Hermes' JSON of message parts (first: %s): not indexed", badContent, firstBadContent))
	}
	if badCalls > 0 {
		fc.problem(0, fmt.Sprintf("tool_calls of %d messages are not a JSON list of calls (first: %s): not summarized", badCalls, firstBad))
	}
	return nil
}

// Hermes stores the content of a message made of parts (text with
// images, audio or files: a multimodal turn) as their JSON after a
// sentinel, "\x01json:" today and "\x00json:" in older builds; a plain
// string is stored as it is.
var hermesJSONContent = []string{"\x01json:", "\x00json:"}

// hermesPart is one part of a multimodal message, in the OpenAI chat
// shape Hermes keeps.
type hermesPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// hermesContent is the text of a message's content column: the text
// parts of a multimodal message, with a placeholder for each image,
// file or recording. Content that has the sentinel but no parts after
// it is an error, and gives no text: indexing it would index its JSON.
func hermesContent(content string) (string, error) {
	raw, found := "", false
	for _, prefix := range hermesJSONContent {
		if raw, found = strings.CutPrefix(content, prefix); found {
			break
		}
	}
	if !found {
		return content, nil
	}
	var s string
	if json.Unmarshal([]byte(raw), &s) == nil {
		return s, nil
	}
	var parts []hermesPart
	if err := json.Unmarshal([]byte(raw), &parts); err != nil {
		var one hermesPart
		if json.Unmarshal([]byte(raw), &one) != nil {
			return "", errors.New(trimErr(err))
		}
		parts = []hermesPart{one}
	}
	var text []string
	for _, p := range parts {
		switch p.Type {
		case "image_url", "image", "input_image":
			text = append(text, imageMark)
		case "file", "input_file", "document":
			text = append(text, documentMark)
		case "input_audio", "audio":
			text = append(text, binaryMark)
		default:
			// "text", and any part of a newer shape that carries text.
			if p.Text != "" {
				text = append(text, p.Text)
			}
		}
	}
	return strings.Join(text, "\n"), nil
}

// hermesHarnessText reports whether a message's text is the harness's.
func hermesHarnessText(text string) bool {
	t := strings.TrimSpace(text)
	for _, h := range hermesHarness {
		if strings.HasPrefix(t, h) {
			return true
		}
	}
	return false
}
