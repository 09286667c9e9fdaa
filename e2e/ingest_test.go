package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nova-recall/nova/internal/novatest"
)

// TestBinaryMarkdownNeverServed: an executable saved under a .md name is
// reported by the sync, by path, and nothing of it is ever served.
func TestBinaryMarkdownNeverServed(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	// The start of an ELF executable with a distinctive word in its
	// string table, the way a real binary carries symbol names.
	blob := []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00\x01\x00\x00\x00")
	for i := 0; len(blob) < 100<<10; i++ {
		blob = append(blob, []byte("\x00\x00\x10@\x00\x00zyxquartz_init\x00runtime.main\x00\xff\xfe")...)
	}
	tool := filepath.Join(h.Data, "tool.md")
	novatest.Must(t, os.WriteFile(tool, blob, 0o600))
	out, errOut, code := h.Novactl("index", "sync", "-v")
	if code != 0 {
		t.Fatalf("sync exit %d: %s %s", code, out, errOut)
	}
	if !strings.Contains(out+errOut, "notes: "+tool+": binary content") {
		t.Errorf("sync does not report %s as binary:\n%s%s", tool, out, errOut)
	}
	// A later sync does not read the unchanged file again, and still
	// says it was skipped.
	f, err := os.OpenFile(filepath.Join(h.Data, "records.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	novatest.Must(t, err)
	_, err = f.WriteString(`{"id":"later-1","text":"A later note.","date":"2026-11-30"}` + "\n")
	novatest.Must(t, err)
	novatest.Must(t, f.Close())
	out, errOut, code = h.Novactl("index", "sync")
	if code != 0 || !strings.Contains(out, "1 found earlier in files not read again") {
		t.Errorf("the second sync does not mention the skipped file (exit %d):\n%s%s", code, out, errOut)
	}
	d := h.Start()
	for _, q := range []string{"zyxquartz_init", "runtime.main", "zyxquartz"} {
		r := search(t, d.Facade, `{"query":"`+q+`","topK":20}`)
		if r.status != 200 || bytes.Contains(r.body, []byte("tool.md")) || bytes.Contains(evidence(t, r), []byte("zyxquartz")) {
			t.Errorf("search %q served the binary file (%d): %.300s", q, r.status, r.body)
		}
	}
}

// TestPlantedTokensNotReturned: npm and Hugging Face tokens (and an AWS
// secret after the word "secret") planted in memory are redacted: no
// search returns them and no file under NOVA_HOME holds them.
func TestPlantedTokensNotReturned(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	tokens := []string{
		"npm_q8Rz3kWm5Tn0Vb7Yc2Xl9Pd4Hf6Js1Ga8Ke3",
		"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",
		"Wk9rTx2LpQ7vNm4Zs8Yd1Hc6Jb3Fg5Aq0Re7Ut2i",
	}
	records := `{"id":"tok-1","text":"The release pipeline publishes with npm token ` + tokens[0] + ` from the vault.","date":"2026-11-21","project":"nova"}
{"id":"tok-2","text":"Model downloads use the Hugging Face token ` + tokens[1] + ` on the build host.","date":"2026-11-21","project":"nova"}
{"id":"tok-3","text":"The backup bucket secret is ` + tokens[2] + ` per the ops runbook.","date":"2026-11-21","project":"nova"}
`
	novatest.Must(t, os.WriteFile(filepath.Join(h.Data, "tokens.jsonl"), []byte(records), 0o600))
	h.Sync()
	d := h.Start()
	queries := append([]string{"release pipeline npm token", "Hugging Face token build host", "backup bucket secret"}, tokens...)
	found := 0
	for _, q := range queries {
		r := search(t, d.Facade, `{"query":"`+q+`","topK":20}`)
		if r.status != 200 {
			t.Fatalf("search %q: %d %s", q, r.status, r.body)
		}
		ev := evidence(t, r)
		if bytes.Contains(ev, []byte("[redacted]")) {
			found++
		}
		for _, tok := range tokens {
			if bytes.Contains(ev, []byte(tok)) {
				t.Errorf("search %q returned the token %s", q, tok)
			}
		}
	}
	if found == 0 {
		t.Error("no search found the redacted records: the test did not reach them")
	}
	eachWrittenFile(t, h, func(p string, b []byte) {
		for _, tok := range tokens {
			if bytes.Contains(b, []byte(tok)) {
				t.Errorf("%s holds the token %s", p, tok)
			}
		}
	})
}

// evidence is what a search response serves from memory (results,
// citations, synthesized answer, aggregated events), without the echo of
// the query.
func evidence(t *testing.T, r reply) []byte {
	t.Helper()
	m := r.json(t)
	var out []byte
	for _, k := range []string{"results", "citationPack", "answerSynthesis", "eventAggregation"} {
		b, err := json.Marshal(m[k])
		novatest.Must(t, err)
		out = append(out, b...)
	}
	return out
}

// TestSync_unreadableDirectory: a directory inside a source that cannot
// be read is reported by the sync (source, path) and by doctor
// (source-unreadable), and the rest of the source is still indexed. Run
// as root, novactl runs as another user, since root reads any directory.
func TestSync_unreadableDirectory(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	locked := filepath.Join(h.Data, "locked")
	novatest.Must(t, os.MkdirAll(locked, 0o700))
	novatest.Must(t, os.WriteFile(filepath.Join(locked, "plans.md"), []byte("# Plans\n\nquarterly plans\n"), 0o600))
	run := novactlAsUser(t, h)
	if os.Geteuid() != 0 {
		novatest.Must(t, os.Chmod(locked, 0))
		t.Cleanup(func() { _ = os.Chmod(locked, 0o700) }) // best effort: lets TempDir remove it
	}
	out, code := run("index", "sync")
	if code != 0 {
		t.Fatalf("sync exit %d:\n%s", code, out)
	}
	if !strings.Contains(out, "notes: "+locked+": directory cannot be read") {
		t.Errorf("sync does not report %s:\n%s", locked, out)
	}
	if !strings.Contains(out, "source notes (markdown): 1 files") {
		t.Errorf("the readable note was not indexed:\n%s", out)
	}
	out, _ = run("doctor")
	if !strings.Contains(out, "source-unreadable") || !strings.Contains(out, locked) {
		t.Errorf("doctor does not say source-unreadable for %s:\n%s", locked, out)
	}
}

// novactlAsUser returns a function running novactl over h. As root, it
// runs it as nobody, over a copy of novactl nobody can execute and a home
// nobody owns, while the directories the test locks stay root's.
func novactlAsUser(t *testing.T, h *novatest.Home) func(args ...string) (string, int) {
	t.Helper()
	bin := novatest.Binary(t, "novactl")
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		const nobody = 65534
		dir := t.TempDir()
		novatest.Must(t, os.Chmod(dir, 0o755))
		novatest.Must(t, os.Chmod(filepath.Dir(dir), 0o755))
		b, err := os.ReadFile(bin)
		novatest.Must(t, err)
		bin = filepath.Join(dir, "novactl")
		novatest.Must(t, os.WriteFile(bin, b, 0o755))
		for p := h.Dir; p != "/" && p != os.TempDir(); p = filepath.Dir(p) {
			novatest.Must(t, os.Chmod(p, 0o755))
		}
		err = filepath.WalkDir(h.Dir, func(p string, de fs.DirEntry, err error) error {
			if err != nil || filepath.Base(p) == "locked" && de.IsDir() {
				if err == nil {
					return fs.SkipDir
				}
				return err
			}
			return os.Chown(p, nobody, nobody)
		})
		novatest.Must(t, err)
		cred = &syscall.Credential{Uid: nobody, Gid: nobody}
	}
	return func(args ...string) (string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Env = h.Env()
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(out), ee.ExitCode()
		}
		novatest.Must(t, err)
		return string(out), 0
	}
}
