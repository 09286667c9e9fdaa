package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// TestIndexList_doctor_newerFormat: after a downgrade, the generation a
// newer Nova wrote (record and manifest of schema this build's +1, sealed
// again) read as a corrupt manifest and an incomplete generation; index
// list and doctor name the newer format and what to do, and the
// generation stays through a sync.
func TestIndexList_doctor_newerFormat(t *testing.T) {
	_, home, env, newest := newerFormatHome(t)
	want := "written by a newer Nova (format 3); this build reads format 2"
	code, out, errOut := runCLI(context.Background(), env, "index", "list")
	if code != ExitOK || !strings.Contains(out, "NEWER FORMAT") || !strings.Contains(out, "generation "+newest+" was "+want) || strings.Contains(out, "incomplete") {
		t.Errorf("index list: exit %d, want %s named as of a newer format\n%s\n%s", code, newest, out, errOut)
	}
	_, out, errOut = runCLI(context.Background(), env, "doctor")
	if !strings.Contains(out+errOut, "the manifest was "+want) || strings.Contains(out+errOut, "roll back (novactl index rollback) or rebuild") {
		t.Errorf("doctor does not name the newer format:\n%s\n%s", out, errOut)
	}
	if code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process"); code != ExitOK {
		t.Fatalf("sync by this build: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(home.Generation(newest)); err != nil {
		t.Errorf("the sync deleted the newer generation: %v", err)
	}
}

// newerFormatHome syncs two generations of a JSONL source and then makes
// the newest, and the manifest naming it active, of schema this build's
// +1, sealed again: what a downgrade leaves. It returns the source root,
// the home, the environment for runCLI and the newest run id.
func newerFormatHome(t *testing.T) (root string, home paths.Home, env []string, newest string) {
	t.Helper()
	root, home, env = jsonlHome(t)
	for i, rec := range []string{`{"id":"1","text":"the heron nests by the weir"}`, `{"id":"2","text":"the otter fishes below the mill"}`} {
		if err := os.WriteFile(filepath.Join(root, "src", "r.jsonl"), []byte(rec+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process", "--full"); code != ExitOK {
			t.Fatalf("sync %d: exit %d\n%s\n%s", i, code, out, errOut)
		}
	}
	ids := index.GenerationIDs(home)
	newest = ids[len(ids)-1]
	for _, p := range []string{filepath.Join(home.Generation(newest), generation.FileCandidate), home.Manifest()} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var m manifest.Manifest
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		m.SchemaVersion = manifest.SchemaVersion + 1
		m.Seal()
		b, _ = json.Marshal(&m)
		if err := os.Chmod(p, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root, home, env, newest
}

// TestRollbackAdvice_newerFormat: after a downgrade, a rollback makes the
// older generation active again; neither its output nor what promote,
// a second rollback and index list say then offers to make the newer
// Nova's generation active (this build cannot: the command would fail),
// and they name the upgrade that can.
func TestRollbackAdvice_newerFormat(t *testing.T) {
	_, home, env, newest := newerFormatHome(t)
	code, out, errOut := runCLI(context.Background(), env, "index", "rollback")
	if code != ExitOK {
		t.Fatalf("rollback: exit %d\n%s\n%s", code, out, errOut)
	}
	if m, _, err := manifest.Read(home.Manifest()); err != nil || m.RunID == newest {
		t.Fatalf("rollback left %v active (%v)", m, err)
	}
	for _, c := range [][]string{{"index", "rollback"}, {"index", "promote"}, {"index", "list"}, {"index", "list", "--json"}} {
		_, o, e := runCLI(context.Background(), env, c...)
		out += o
		errOut += e
	}
	// Without the history, which no longer says the newer Nova made it
	// active, it is still no interrupted promotion this build can finish.
	if err := os.Remove(home.History()); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]string{{"index", "list"}, {"index", "promote"}} {
		_, o, e := runCLI(context.Background(), env, c...)
		out += o
		errOut += e
	}
	for _, bad := range []string{"promote " + newest, "--to " + newest, "novactl index promote finishes it"} {
		if strings.Contains(out+errOut, bad) {
			t.Errorf("advice offers %q, which this build cannot do to a newer Nova's generation:\n%s\n%s", bad, out, errOut)
		}
	}
	// Each offer a command would have made names the upgrade instead.
	if got := strings.Count(out+errOut, "upgrade Nova"); got < 3 {
		t.Errorf("the upgrade is named %d times, want at least 3 (promote, second rollback, promote without history):\n%s\n%s", got, out, errOut)
	}
	// The advice is right: the newer generation cannot be made active.
	if code, _, _ := runCLI(context.Background(), env, "index", "rollback", "--to", newest); code == ExitOK {
		t.Errorf("rollback --to %s succeeded: this build cannot read it", newest)
	}
}

// TestRollbackNext_newerFormat: after a downgrade, this build syncs two
// generations over the newer Nova's; a rollback then says which one the
// next rollback steps back to, and that is not the newer Nova's, which a
// plain rollback passes over (it said it would step back to it).
func TestRollbackNext_newerFormat(t *testing.T) {
	root, _, env, newest := newerFormatHome(t)
	for i, rec := range []string{`{"id":"3","text":"the kestrel hovers over the verge"}`, `{"id":"4","text":"the swift never lands"}`} {
		if err := os.WriteFile(filepath.Join(root, "src", "r.jsonl"), []byte(rec+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process", "--full"); code != ExitOK {
			t.Fatalf("sync %d by this build: exit %d\n%s\n%s", i, code, out, errOut)
		}
	}
	code, out, errOut := runCLI(context.Background(), env, "index", "rollback")
	if code != ExitOK {
		t.Fatalf("rollback: exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out, "steps back to "+newest) {
		t.Errorf("the next rollback is said to step back to %s, a newer Nova's generation it passes over:\n%s", newest, out)
	}
}
