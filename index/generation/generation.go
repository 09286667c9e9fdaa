// Package generation is the on-disk format of one index generation and its
// read-only loader. A generation directory holds the chunks (JSONL), the
// BM25 index, the vectors, the builtin embedder's model (when the builtin
// provider built it) and metadata. Once written it is never modified. The
// loader checks every file's size and SHA-256 against the manifest before
// parsing it, and fails with a named error rather than serve a corrupt
// generation.
package generation

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/memory"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/vector"
)

// File names inside a generation directory.
const (
	FileChunks    = "chunks.jsonl"
	FileLexical   = "lexical.bin"
	FileContext   = "context.bin"
	FileVectors   = "vectors.f32"
	FileModel     = "model.lsa"
	FileMeta      = "meta.json"
	FileReport    = "build-report.json"
	FileANN       = "ann.hnsw"
	FileCandidate = "candidate.json"
)

// FormatVersion is the generation format this build writes and reads.
const FormatVersion = 1

// AnalyzerVersion names the lexical analyzer; a generation built with a
// different analyzer cannot be searched with this one.
const AnalyzerVersion = "nova-analyzer-v1"

// Meta describes a generation.
type Meta struct {
	FormatVersion    int                  `json:"formatVersion"`
	RunID            string               `json:"runId"`
	CreatedAt        time.Time            `json:"createdAt"`
	ChunkCount       int                  `json:"chunkCount"`
	RecordCount      int                  `json:"recordCount"`
	EmbeddingProfile api.EmbeddingProfile `json:"embeddingProfile"`
	Analyzer         string               `json:"analyzer"`
	// ANN describes the optional HNSW accelerator (nil: exact search).
	ANN *ANNMeta `json:"ann,omitempty"`
}

// ANNMeta records the build-time recall check of the HNSW accelerator.
type ANNMeta struct {
	Enabled    bool    `json:"enabled"`
	RecallAt10 float64 `json:"recallAt10"`
	Reason     string  `json:"reason"`
}

// Generation is a loaded, verified, immutable generation. It is safe for
// concurrent use.
type Generation struct {
	Dir     string
	Meta    Meta
	Chunks  []memory.Chunk
	Lexical *lexical.Index
	// Context is the BM25 index of each chunk's neighbouring context, a
	// second, lower-weighted lexical field.
	Context *lexical.Index
	Vectors *vector.Store
	// Model is the builtin embedder of this generation (nil for other
	// providers): queries against this generation are embedded with it.
	Model *embedding.LSA
	// LoadDuration is how long Open took.
	LoadDuration time.Duration
}

// Written is the result of Write: the file sums for the manifest.
type Written struct {
	Files map[string]manifest.FileSum
	Bytes int64
}

// Contents is what Write persists.
type Contents struct {
	Meta    Meta
	Chunks  []memory.Chunk
	Lexical *lexical.Index
	Context *lexical.Index
	Vectors *vector.Store
	Model   *embedding.LSA
	// ANN is the approximate shortlist, present only when it passed the
	// build-time recall check.
	ANN    *vector.HNSW
	Report any
}

// Write writes c into dir (which must exist and be empty), fsyncing every
// file and then the directory.
func Write(dir string, c Contents) (*Written, error) {
	w := &Written{Files: map[string]manifest.FileSum{}}
	put := func(name string, write func(io.Writer) error) error {
		sum, err := writeFile(filepath.Join(dir, name), write)
		if err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
		w.Files[name] = sum
		w.Bytes += sum.Size
		return nil
	}
	if err := put(FileChunks, func(out io.Writer) error {
		enc := json.NewEncoder(out)
		enc.SetEscapeHTML(false)
		for i := range c.Chunks {
			if err := enc.Encode(&c.Chunks[i]); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := put(FileLexical, func(out io.Writer) error { _, err := c.Lexical.WriteTo(out); return err }); err != nil {
		return nil, err
	}
	if err := put(FileContext, func(out io.Writer) error { _, err := c.Context.WriteTo(out); return err }); err != nil {
		return nil, err
	}
	if err := put(FileVectors, func(out io.Writer) error { _, err := c.Vectors.WriteTo(out); return err }); err != nil {
		return nil, err
	}
	if c.Model != nil {
		if err := put(FileModel, func(out io.Writer) error { _, err := c.Model.WriteTo(out); return err }); err != nil {
			return nil, err
		}
	}
	if err := put(FileMeta, jsonWriter(c.Meta)); err != nil {
		return nil, err
	}
	if c.ANN != nil {
		if err := put(FileANN, func(out io.Writer) error { _, err := c.ANN.WriteTo(out); return err }); err != nil {
			return nil, err
		}
	}
	if c.Report != nil {
		if err := put(FileReport, jsonWriter(c.Report)); err != nil {
			return nil, err
		}
	}
	return w, manifest.SyncDir(dir)
}

func jsonWriter(v any) func(io.Writer) error {
	return func(out io.Writer) error {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	}
}

func writeFile(path string, write func(io.Writer) error) (manifest.FileSum, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, paths.FileMode)
	if err != nil {
		return manifest.FileSum{}, err
	}
	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(f, h), 1<<20)
	cw := &countingWriter{w: bw}
	if err := write(cw); err != nil {
		f.Close()
		return manifest.FileSum{}, err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return manifest.FileSum{}, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return manifest.FileSum{}, err
	}
	if err := f.Close(); err != nil {
		return manifest.FileSum{}, err
	}
	return manifest.FileSum{Size: cw.n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ErrCorrupt is wrapped by every load failure caused by the generation's
// files (as opposed to the caller's context or the OS).
var ErrCorrupt = errors.New("generation is corrupt")

// CorruptError names the file and the problem.
type CorruptError struct {
	RunID, File, Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("generation %s: %s: %s", e.RunID, e.File, e.Reason)
}

// Unwrap makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Unwrap() error { return ErrCorrupt }

// Open loads and verifies the generation in dir against the file sums in
// files (from the manifest or the candidate record).
func Open(dir string, runID string, files map[string]manifest.FileSum, analyzer *lexical.Analyzer) (*Generation, error) {
	start := time.Now()
	g := &Generation{Dir: dir}
	bad := func(file, format string, args ...any) error {
		return &CorruptError{RunID: runID, File: file, Reason: fmt.Sprintf(format, args...)}
	}
	for _, name := range []string{FileChunks, FileLexical, FileContext, FileVectors, FileMeta} {
		if _, ok := files[name]; !ok {
			return nil, bad(name, "not listed in the manifest")
		}
	}
	if err := verified(dir, FileMeta, files, func(r io.Reader) error {
		return json.NewDecoder(r).Decode(&g.Meta)
	}); err != nil {
		return nil, annotate(runID, err)
	}
	if g.Meta.FormatVersion != FormatVersion {
		return nil, bad(FileMeta, "format version %d is not supported (want %d)", g.Meta.FormatVersion, FormatVersion)
	}
	if g.Meta.Analyzer != AnalyzerVersion {
		return nil, bad(FileMeta, "analyzer %q differs from %q; rebuild the index", g.Meta.Analyzer, AnalyzerVersion)
	}
	if g.Meta.RunID != runID {
		return nil, bad(FileMeta, "runId %q does not match %q", g.Meta.RunID, runID)
	}
	n, dim := g.Meta.ChunkCount, g.Meta.EmbeddingProfile.Dimension
	if err := verified(dir, FileChunks, files, func(r io.Reader) error {
		dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
		g.Chunks = make([]memory.Chunk, 0, n)
		for dec.More() {
			var c memory.Chunk
			if err := dec.Decode(&c); err != nil {
				return err
			}
			g.Chunks = append(g.Chunks, c)
		}
		return nil
	}); err != nil {
		return nil, annotate(runID, err)
	}
	if len(g.Chunks) != n {
		return nil, bad(FileChunks, "%d chunks, meta says %d", len(g.Chunks), n)
	}
	var err error
	if g.Lexical, err = readLexical(dir, FileLexical, files, n); err != nil {
		return nil, annotate(runID, err)
	}
	if g.Context, err = readLexical(dir, FileContext, files, n); err != nil {
		return nil, annotate(runID, err)
	}
	if err := verified(dir, FileVectors, files, func(r io.Reader) error {
		s, err := vector.ReadStore(r, n, dim)
		g.Vectors = s
		return err
	}); err != nil {
		return nil, annotate(runID, err)
	}
	if g.Meta.EmbeddingProfile.Provider == embedding.ProviderBuiltin {
		if _, ok := files[FileModel]; !ok {
			return nil, bad(FileModel, "builtin generation has no model")
		}
		if err := verified(dir, FileModel, files, func(r io.Reader) error {
			m, err := embedding.ReadLSA(r, analyzer)
			g.Model = m
			return err
		}); err != nil {
			return nil, annotate(runID, err)
		}
		if g.Model.Profile() != g.Meta.EmbeddingProfile {
			return nil, bad(FileModel, "model %s does not match the generation's profile %s", g.Model.ID(), g.Meta.EmbeddingProfile.Model)
		}
	}
	if g.Meta.ANN != nil && g.Meta.ANN.Enabled {
		if _, ok := files[FileANN]; !ok {
			return nil, bad(FileANN, "meta enables the approximate index but the manifest does not list it")
		}
		if err := verified(dir, FileANN, files, func(r io.Reader) error {
			h, err := vector.ReadHNSW(r, dim)
			if err == nil {
				g.Vectors = g.Vectors.WithANN(h)
			}
			return err
		}); err != nil {
			return nil, annotate(runID, err)
		}
	}
	// Files the loader does not parse (the build report) are still
	// checked: the manifest vouches for every file it lists.
	for _, name := range sortedNames(files) {
		switch name {
		case FileChunks, FileLexical, FileContext, FileVectors, FileModel, FileMeta:
			continue
		case FileANN:
			if g.Meta.ANN != nil && g.Meta.ANN.Enabled {
				continue // verified and loaded above
			}
		}
		if err := verified(dir, name, files, func(io.Reader) error { return nil }); err != nil {
			return nil, annotate(runID, err)
		}
	}
	g.LoadDuration = time.Since(start)
	return g, nil
}

type fileError struct {
	file string
	err  error
}

func (e *fileError) Error() string { return e.file + ": " + e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

func annotate(runID string, err error) error {
	var fe *fileError
	if errors.As(err, &fe) {
		if errors.Is(fe.err, os.ErrNotExist) {
			return &CorruptError{RunID: runID, File: fe.file, Reason: "file is missing"}
		}
		return &CorruptError{RunID: runID, File: fe.file, Reason: fe.err.Error()}
	}
	return err
}

// readLexical reads and verifies one BM25 index file of n documents.
func readLexical(dir, name string, files map[string]manifest.FileSum, n int) (*lexical.Index, error) {
	var ix *lexical.Index
	if err := verified(dir, name, files, func(r io.Reader) error {
		var err error
		ix, err = lexical.Read(r)
		return err
	}); err != nil {
		return nil, err
	}
	if ix.Len() != n {
		return nil, &fileError{name, fmt.Errorf("%d documents, meta says %d", ix.Len(), n)}
	}
	return ix, nil
}

// verified opens dir/name, checks its size and SHA-256, then parses it
// with parse.
func verified(dir, name string, files map[string]manifest.FileSum, parse func(io.Reader) error) error {
	want := files[name]
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return &fileError{name, err}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return &fileError{name, err}
	}
	if fi.Size() != want.Size {
		return &fileError{name, fmt.Errorf("size %d, manifest says %d", fi.Size(), want.Size)}
	}
	// Hash the whole file before parsing it: a damaged size field must be
	// refused by the checksum, not believed by a parser that allocates
	// what it claims (a flipped bit can ask for gigabytes).
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return &fileError{name, err}
	}
	if got := hexSum(h); got != want.SHA256 {
		return &fileError{name, fmt.Errorf("checksum %s…, manifest says %s…", got[:12], want.SHA256[:min(12, len(want.SHA256))])}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return &fileError{name, err}
	}
	if err := parse(f); err != nil {
		return &fileError{name, fmt.Errorf("parse: %w", err)}
	}
	return nil
}

func hexSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// Verify re-hashes every file of dir against files without parsing.
func Verify(dir string, files map[string]manifest.FileSum) error {
	for _, name := range sortedNames(files) {
		if err := verified(dir, name, files, func(io.Reader) error { return nil }); err != nil {
			return err
		}
	}
	return nil
}

func sortedNames(files map[string]manifest.FileSum) []string {
	m := manifest.Manifest{Files: files}
	return m.SortedFiles()
}

// ReadChunks reads a chunks file without verifying it (callers verify).
func ReadChunks(path string) ([]memory.Chunk, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	var out []memory.Chunk
	for dec.More() {
		var c memory.Chunk
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		out = append(out, c)
	}
	return out, nil
}
