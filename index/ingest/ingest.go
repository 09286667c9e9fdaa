// Package ingest reads configured sources into memory records: JSONL
// record files, Markdown notes, Codex CLI rollouts and Claude Code
// transcripts. Readers never abort on bad input: a malformed line is
// reported as a Problem (file, line, why) and skipped, and the rest of the
// source is still read.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// Problem is input that was skipped, with where and why.
type Problem struct {
	Source string `json:"source"`
	Path   string `json:"path"`
	Line   int    `json:"line,omitempty"`
	Reason string `json:"reason"`
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Reason)
	}
	return fmt.Sprintf("%s: %s", p.Path, p.Reason)
}

// Sink receives what a reader produces.
type Sink struct {
	// Record receives each record; an error stops the reader.
	Record func(memory.Record) error
	// Problem receives each skipped input.
	Problem func(Problem)
	// File is told about each file the reader opened (for the source
	// manifest and freshness checks). May be nil.
	File func(path string)
}

// ErrSourceMissing means a configured source path does not exist.
var ErrSourceMissing = errors.New("source path does not exist")

// Read reads src with the reader of its kind.
func Read(ctx context.Context, src config.Source, sink Sink) error {
	if sink.File == nil {
		sink.File = func(string) {}
	}
	switch src.Kind {
	case config.KindJSONL:
		return readFiles(ctx, src, defaultGlobs(src.Kind), sink, readJSONL)
	case config.KindMarkdown:
		return readFiles(ctx, src, defaultGlobs(src.Kind), sink, readMarkdown)
	case config.KindCodex:
		return readFiles(ctx, src, defaultGlobs(src.Kind), sink, readCodexFile)
	case config.KindClaudeCode:
		return readFiles(ctx, src, defaultGlobs(src.Kind), sink, readClaudeCodeFile)
	}
	return fmt.Errorf("unknown source kind %q", src.Kind)
}

// DefaultSourceSet is the source set of a kind when the source names none.
func DefaultSourceSet(kind string) string {
	switch kind {
	case config.KindCodex, config.KindClaudeCode:
		return "agent-transcripts"
	case config.KindMarkdown:
		return "notes"
	}
	return "external-content"
}

type fileReader func(ctx context.Context, src config.Source, path, rel string, sink Sink) error

// readFiles walks src.Path and calls read for every matching file, in
// lexical order so builds are deterministic.
func readFiles(ctx context.Context, src config.Source, defaults []string, sink Sink, read fileReader) error {
	files, err := Files(src, defaults)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		sink.File(f.Path)
		if err := read(ctx, src, f.Path, f.Rel, sink); err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return err
			}
			sink.Problem(Problem{Source: src.Name, Path: f.Path, Reason: err.Error()})
		}
	}
	return nil
}

// File is one file of a source.
type File struct {
	// Path is absolute; Rel is relative to the source path ("." joined).
	Path, Rel string
}

// Files lists the files of src matching its include globs (or defaults)
// and none of its exclude globs. Hidden directories (.git, .obsidian,
// .trash) are skipped and symlinked directories are not followed.
func Files(src config.Source, defaults []string) ([]File, error) {
	root := src.Path
	fi, err := os.Stat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrSourceMissing, root)
	}
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", src.Name, err)
	}
	include := src.Include
	if len(include) == 0 {
		include = defaults
	}
	if !fi.IsDir() {
		return []File{{Path: root, Rel: filepath.Base(root)}}, nil
	}
	var out []File
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			// An unreadable subdirectory is skipped, not fatal.
			if d != nil && d.IsDir() && p != root {
				return fs.SkipDir
			}
			return err
		}
		if d.IsDir() {
			if p != root && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Stat(p)
			if err != nil || !target.Mode().IsRegular() {
				return nil
			}
		} else if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if matchAny(include, rel) && !matchAny(src.Exclude, rel) {
			out = append(out, File{Path: p, Rel: rel})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", root, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rel < out[j].Rel })
	return out, nil
}

// matchAny matches rel, or its base name, against globs. A "**/" prefix
// matches at any depth.
func matchAny(globs []string, rel string) bool {
	base := filepath.Base(rel)
	for _, g := range globs {
		g = strings.TrimPrefix(g, "**/")
		if ok, _ := filepath.Match(g, rel); ok {
			return true
		}
		if ok, _ := filepath.Match(g, base); ok {
			return true
		}
	}
	return false
}

// ProjectFromCwd returns the project named by a working directory: its
// last path element (/Users/me/src/nova gives nova).
func ProjectFromCwd(cwd string) string {
	cwd = strings.TrimRight(strings.ReplaceAll(cwd, "\\", "/"), "/")
	if cwd == "" {
		return ""
	}
	i := strings.LastIndex(cwd, "/")
	return cwd[i+1:]
}
