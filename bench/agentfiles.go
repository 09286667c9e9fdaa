package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/paths"
)

// freshWay is one way new memory reaches a watched source while the
// watcher runs, as an agent writes it.
type freshWay struct {
	// Name is the row of the report.
	Name string
	// write makes the i-th piece of memory holding token appear.
	write func(i int, token string) error
}

// Names of the ways the freshness bench adds memory.
const (
	FreshJSONL      = "jsonl append"
	FreshClaudeCode = "claude-code transcript append"
	FreshCodex      = "codex rollout in a new day folder"
)

// agentSources lays out, under dir, a Claude Code project holding one
// transcript and a Codex sessions tree holding one rollout, in the shapes
// those agents write today, and returns them as sources with the ways to
// add to them: a line appended to the live transcript, and a new rollout
// in a day folder that does not exist yet (as Codex starts a new day).
func agentSources(dir string, now time.Time) ([]config.Source, []freshWay, error) {
	claudeRoot := filepath.Join(dir, "claude", "projects")
	project := filepath.Join(claudeRoot, "-home-dev-src-bench")
	codexRoot := filepath.Join(dir, "codex", "sessions")
	for _, d := range []string{project, codexRoot} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, nil, err
		}
	}
	const session = "7d0c5a9e-1111-4b2b-8c8c-0123456789ab"
	transcript := filepath.Join(project, session+".jsonl")
	claudeLine := func(kind, uuid, parent, text string, at time.Time) []byte {
		msg := map[string]any{"role": kind, "content": text}
		if kind == "assistant" {
			msg["content"] = []map[string]string{{"type": "text", "text": text}}
		}
		var par any
		if parent != "" {
			par = parent
		}
		b, _ := json.Marshal(map[string]any{
			"isSidechain": false, "userType": "external", "cwd": "/home/dev/src/bench", "sessionId": session,
			"version": "2.1.80", "gitBranch": "main", "type": kind, "parentUuid": par, "uuid": uuid,
			"timestamp": at.UTC().Format(time.RFC3339Nano), "message": msg,
		})
		return b
	}
	start := now.Add(-time.Hour)
	f, err := paths.CreatePrivate(transcript)
	if err != nil {
		return nil, nil, err
	}
	for i, line := range [][]byte{
		claudeLine("user", "u0", "", "Why does the bench service restart every night?", start),
		claudeLine("assistant", "a0", "u0", "The nightly job rotates its certificate and the service reloads it.", start.Add(time.Second)),
	} {
		if _, err := f.Write(append(line, '\n')); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("transcript line %d: %w", i, err)
		}
	}
	if err := f.Close(); err != nil {
		return nil, nil, err
	}
	if err := writeRollout(codexRoot, start, "Rotate the bench certificate", "Rotated it; the service reloads at night."); err != nil {
		return nil, nil, err
	}

	sources := []config.Source{
		{Name: "claude", Kind: config.KindClaudeCode, Path: claudeRoot},
		{Name: "codex", Kind: config.KindCodex, Path: codexRoot},
	}
	ways := []freshWay{
		{Name: FreshClaudeCode, write: func(i int, token string) error {
			return appendLine(transcript, claudeLine("assistant", fmt.Sprintf("a%d", i+1), fmt.Sprintf("a%d", i),
				"Decision "+token+": the bench keeps its certificate for a year.", time.Now()))
		}},
		{Name: FreshCodex, write: func(i int, token string) error {
			// Day i+1 after today: a folder no watch covers yet.
			day := now.AddDate(0, 0, i+1)
			return writeRollout(codexRoot, day, "What did we decide about "+token+"?", "Decision "+token+": the bench keeps its certificate for a year.")
		}},
	}
	return sources, ways, nil
}

// writeRollout writes a Codex rollout for day under root's YYYY/MM/DD
// folder: the session's metadata, a user turn and the assistant's answer.
func writeRollout(root string, day time.Time, ask, answer string) error {
	folder := filepath.Join(root, day.Format("2006"), day.Format("01"), day.Format("02"))
	if err := os.MkdirAll(folder, 0o700); err != nil {
		return err
	}
	id := fmt.Sprintf("0196c0de-7a11-7c2e-9f00-%012d", day.Unix()%1_000_000_000_000)
	ts := func(d time.Duration) string { return day.Add(d).UTC().Format("2006-01-02T15:04:05.000Z") }
	message := func(role, kind, text string, d time.Duration) map[string]any {
		return map[string]any{"timestamp": ts(d), "type": "response_item", "payload": map[string]any{
			"type": "message", "role": role, "content": []map[string]string{{"type": kind, "text": text}}}}
	}
	var out []byte
	for _, v := range []any{
		map[string]any{"timestamp": ts(0), "type": "session_meta", "payload": map[string]any{
			"id": id, "timestamp": ts(0), "cwd": "/home/dev/src/bench", "originator": "codex_cli_rs", "cli_version": "0.120.0"}},
		message("user", "input_text", ask, time.Second),
		message("assistant", "output_text", answer, 2*time.Second),
	} {
		b, _ := json.Marshal(v)
		out = append(append(out, b...), '\n')
	}
	name := "rollout-" + day.UTC().Format("2006-01-02T15-04-05") + "-" + id + ".jsonl"
	return os.WriteFile(filepath.Join(folder, name), out, 0o600)
}
