package generation

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nova-recall/nova/memory"
)

// LegacyChunks reads the chunks of the active generation when it is of
// the first format (one directory with chunks.jsonl, vectors.f32, ...):
// not to serve it, but so that a sync carries forward the memory of
// source files that no longer exist. The chunks file is checked against
// the old manifest's SHA-256 first.
func LegacyChunks(indexDir string) ([]memory.Chunk, error) {
	b, err := os.ReadFile(filepath.Join(indexDir, "manifest.json"))
	if err != nil {
		return nil, err
	}
	var m struct {
		SchemaVersion  int    `json:"schemaVersion"`
		GenerationPath string `json:"generationPath"`
		Files          map[string]struct {
			Size   int64  `json:"size"`
			SHA256 string `json:"sha256"`
		} `json:"files"`
	}
	if err := json.Unmarshal(b, &m); err != nil || m.SchemaVersion != 1 {
		return nil, fmt.Errorf("not a first-format manifest")
	}
	want, ok := m.Files["chunks.jsonl"]
	if name, found := strings.CutPrefix(m.GenerationPath, "generations/"); !ok || !found || filepath.Base(m.GenerationPath) != name {
		return nil, fmt.Errorf("first-format manifest lists no chunks")
	}
	f, err := os.Open(filepath.Join(indexDir, m.GenerationPath, "chunks.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if n, err := io.Copy(h, f); err != nil || n != want.Size || hex.EncodeToString(h.Sum(nil)) != want.SHA256 {
		return nil, fmt.Errorf("%w: the first-format chunks file does not match its manifest", ErrCorrupt)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	var out []memory.Chunk
	for dec.More() {
		var c memory.Chunk
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("%w: chunks.jsonl: %v", ErrCorrupt, err)
		}
		out = append(out, c)
	}
	return out, nil
}
