package ingest

// Version names the reading rules (what each reader extracts from a
// file). An index built under other rules is read again from scratch:
// bump it whenever a reader changes what it produces.
//
// ingest-v2: every Codex message whatever its phase, compaction
// summaries, one Claude Code record per assistant text line, session
// titles, binary content skipped, gitleaks redaction rules.
const Version = "ingest-v2"
