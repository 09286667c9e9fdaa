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
)

// TestIndexList_doctor_newerFormat: after a downgrade, the generation a
// newer Nova wrote (record and manifest of schema this build's +1, sealed
// again) read as a corrupt manifest and an incomplete generation; index
// list and doctor name the newer format and what to do, and the
// generation stays through a sync.
func TestIndexList_doctor_newerFormat(t *testing.T) {
	root, home, env := jsonlHome(t)
	for i, rec := range []string{`{"id":"1","text":"the heron nests by the weir"}`, `{"id":"2","text":"the otter fishes below the mill"}`} {
		if err := os.WriteFile(filepath.Join(root, "src", "r.jsonl"), []byte(rec+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if code, out, errOut := runCLI(context.Background(), env, "index", "sync", "--in-process", "--full"); code != ExitOK {
			t.Fatalf("sync %d: exit %d\n%s\n%s", i, code, out, errOut)
		}
	}
	ids := index.GenerationIDs(home)
	newest := ids[len(ids)-1]
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
