package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/internal/novatest"
)

// TestFirstDay follows a new user through the README's first steps on a
// home that looks like a developer's: Claude Code sessions with a
// sub-agent, a Codex rollout, a notes folder that is also a site's source
// (node_modules inside), then config init, the first sync, novad and the
// watcher, searches, an agent appending a turn a line at a time, a note
// deleted, and the pruning doctor advises.
func TestFirstDay(t *testing.T) {
	t.Parallel()
	user := t.TempDir()
	h := &novatest.Home{T: t, Dir: filepath.Join(user, ".nova"), User: user}
	write := func(rel, content string) string {
		t.Helper()
		p := filepath.Join(user, rel)
		novatest.Must(t, os.MkdirAll(filepath.Dir(p), 0o700))
		novatest.Must(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	session := write(".claude/projects/-home-dev-src-zoo/5b1c2d3e-0000-4a4a-9b9b-0000000000aa.jsonl",
		claudeLine(1, "user", "Why does the gazetteer4112 importer drop towns?")+
			claudeLine(2, "assistant", "It splits lines on the apostrophe; the gazetteer4112 importer now uses encoding/csv."))
	write(".claude/projects/-home-dev-src-zoo/5b1c2d3e-0000-4a4a-9b9b-0000000000aa/subagents/agent-b9.jsonl",
		claudeLine(3, "user", "Find where the town list is loaded")+
			claudeLine(4, "assistant", "The town list comes from the capybara7070 mirror in loader/fetch.go."))
	write(".codex/sessions/2026/12/01/rollout-2026-12-01T09-00-00-0196c0de-7a11-7c2e-9f00-00000000beef.jsonl",
		codexRollout("0196c0de-7a11-7c2e-9f00-00000000beef", "The platypus5150 cache warms its shards in parallel now."))
	write("notes/tasks.md", "# Board\n\n## Todo\n- [ ] Renew the pelican3030 certificate before Friday\n")
	ops := write("notes/ops.md", "# Ops\n\nThe replica lags because wal_keep_size is 64MB; the walrus6060 backfill needs 1GB.\n")
	write("notes/node_modules/leftpad/README.md", "# leftpad\n\nPads a string with the gharial8080 character.\n")

	out, errs, code := h.Novactl("config", "init", "--notes", "~/notes")
	if code != 0 {
		t.Fatalf("config init: %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"~/.claude/projects", "~/.codex", "~/notes"} {
		if !strings.Contains(out, want) {
			t.Errorf("config init did not propose %s:\n%s", want, out)
		}
	}
	// Free ports: never the defaults a real novad may hold.
	cfg, err := os.OpenFile(filepath.Join(h.Dir, "config.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	novatest.Must(t, err)
	_, err = cfg.WriteString("server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\n")
	novatest.Must(t, err)
	novatest.Must(t, cfg.Close())

	h.Sync()
	d := h.Start()
	startWatcher(t, h)
	for _, token := range []string{"gazetteer4112", "capybara7070", "platypus5150", "pelican3030", "walrus6060"} {
		if hits(t, d, token) == 0 {
			t.Errorf("%s is not recalled after the first sync", token)
		}
	}
	if hits(t, d, "gharial8080") != 0 {
		t.Error("a package README in the notes folder's node_modules is recalled as a note")
	}

	// The agent writes its next turn as it does: a line at a time, the
	// last one first cut short.
	appendTo(t, session, claudeLine(5, "user", "And the wombat9090 exporter?"))
	waitSearchable(t, d, "wombat9090", "an appended turn")
	last := claudeLine(6, "assistant", "The numbat4040 timeout is 120 seconds now.")
	appendTo(t, session, last[:40])
	appendTo(t, session, last[40:])
	waitSearchable(t, d, "numbat4040", "a turn whose line was written in two parts")

	// A deleted note keeps its memory until pruned, and doctor says so;
	// once pruned it is neither recalled nor reported as kept.
	novatest.Must(t, os.Remove(ops))
	waitFor(t, 90*time.Second, "doctor to report the deleted note", func() bool {
		out, _, _ := h.Novactl("doctor")
		return strings.Contains(out, "memory is kept for 1 source file that no longer exists: "+ops)
	})
	if hits(t, d, "walrus6060") == 0 {
		t.Error("the deleted note's memory was dropped before pruning")
	}
	if out, errs, code := h.Novactl("index", "sync", "--prune-missing"); code != 0 {
		t.Fatalf("index sync --prune-missing: %d\n%s%s", code, out, errs)
	}
	waitFor(t, 90*time.Second, "the pruned note to be forgotten", func() bool { return hits(t, d, "walrus6060") == 0 })
	if out, _, _ := h.Novactl("doctor"); strings.Contains(out, "Files gone") {
		t.Errorf("doctor still names files gone after --prune-missing:\n%s", out)
	}
}
