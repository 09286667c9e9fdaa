package ingest

import (
	"context"
	"fmt"
	"strings"

	"github.com/nova-recall/nova/config"
)

// Version names the reading rules (what each reader extracts from a
// file). An index built under other rules is read again from scratch:
// bump it whenever a reader changes what it produces.
const Version = "ingest-v1"

// SourceFiles lists the files a build reads for src: its include globs
// (or its kind's defaults) minus its exclude globs, in build order.
func SourceFiles(src config.Source) ([]File, error) {
	return Files(src, defaultGlobs(src.Kind))
}

func defaultGlobs(kind string) []string {
	switch kind {
	case config.KindJSONL:
		return []string{"*.jsonl", "*.ndjson"}
	case config.KindMarkdown:
		return []string{"*.md", "*.markdown"}
	case config.KindCodex:
		return []string{"rollout-*.jsonl", "rollout-*.jsonl.zst"}
	case config.KindClaudeCode:
		return []string{"*.jsonl"}
	}
	return nil
}

// ReadFile reads one file of src (as SourceFiles listed it) with the
// reader of src's kind.
func ReadFile(ctx context.Context, src config.Source, f File, sink Sink) error {
	if sink.File == nil {
		sink.File = func(string) {}
	}
	sink.File(f.Path)
	var read fileReader
	switch src.Kind {
	case config.KindJSONL:
		read = readJSONL
	case config.KindMarkdown:
		read = readMarkdown
	case config.KindCodex:
		read = readCodexFile
	case config.KindClaudeCode:
		read = readClaudeCodeFile
	default:
		return fmt.Errorf("unknown source kind %q", src.Kind)
	}
	return read(ctx, src, f.Path, f.Rel, sink)
}

// LineBased reports whether a file of kind is a sequence of independent
// lines (JSONL), so a record's line number places it and a file that only
// grew holds its earlier records unchanged. Compressed rollouts and
// Markdown notes are read whole.
func LineBased(kind, path string) bool {
	switch kind {
	case config.KindJSONL, config.KindClaudeCode:
		return true
	case config.KindCodex:
		return !strings.HasSuffix(path, ".zst")
	}
	return false
}
