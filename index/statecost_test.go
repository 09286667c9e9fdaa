package index

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/paths"
)

// benchStates returns the states of n transcripts, each cursor with about
// 1 KiB of reader state, as a home of n Claude Code sessions has them.
func benchStates(n int) *sourceStates {
	s := &sourceStates{Version: ingest.Version}
	state := []byte(`"` + base64.StdEncoding.EncodeToString(make([]byte, 768)) + `"`)
	for i := range n {
		s.Files = append(s.Files, FileState{Source: "claude", Path: fmt.Sprintf("/home/dev/.claude/projects/-src-proj%d/%08d-1c4b-b749-ab31-376377d548d3.jsonl", i/100, i),
			Size: 94_000, ModTime: 1_700_000_000_000_000_000 + int64(i), Device: 2049, Inode: uint64(1000 + i), Records: 29,
			Cursor: ingest.Cursor{Offset: 94_000, Line: 87, State: state, Prefix: "0123456789abcdef", Window: "0123456789abcdef", Size: 94_000}})
	}
	return s
}

// BenchmarkSourceStatesWrite is what writing a sync's sources.json costs
// at 3 000 sessions when one of them moved: whole (before), and as the
// changes to a base (now). Each write is sealed (fsynced) as the build
// writes it.
func BenchmarkSourceStatesWrite(b *testing.B) {
	dir := b.TempDir()
	for _, mode := range []string{"whole", "changes"} {
		b.Run(mode, func(b *testing.B) {
			x := &Indexer{home: paths.Home{Root: filepath.Join(dir, mode)}}
			x.opts.Hook = func(string) {}
			x.opts.Now = time.Now
			s := benchStates(3000)
			if mode == "changes" {
				if err := x.rebase(s); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := range b.N {
				s.Files[7].Size += 100
				s.Files[7].Cursor.Offset += 100
				path := filepath.Join(dir, fmt.Sprintf("%s-%d.json", mode, i))
				if _, err := writeSealed(path, s.marshal()); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				os.Remove(path)
				b.StartTimer()
			}
		})
	}
}

// BenchmarkSourceStatesRead is what reading a generation's states back
// costs at 3 000 sessions: whole, and as changes to a base.
func BenchmarkSourceStatesRead(b *testing.B) {
	dir := b.TempDir()
	for _, mode := range []string{"whole", "changes"} {
		b.Run(mode, func(b *testing.B) {
			x := &Indexer{home: paths.Home{Root: filepath.Join(dir, mode)}}
			x.opts.Hook = func(string) {}
			x.opts.Now = time.Now
			s := benchStates(3000)
			if mode == "changes" {
				if err := x.rebase(s); err != nil {
					b.Fatal(err)
				}
				s.Files[7].Size += 100
			}
			path := filepath.Join(x.home.IndexDir(), "generations", "g", "sources.json")
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(path, s.marshal(), 0o600); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				got, err := readSourceStates(path)
				if err != nil || len(got.Files) != 3000 {
					b.Fatalf("%d files, %v", len(got.Files), err)
				}
			}
		})
	}
}
