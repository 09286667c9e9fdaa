// Package ingest reads configured sources into memory records: JSONL
// record files, Markdown notes, Codex CLI rollouts, Claude Code
// transcripts, OpenClaw state directories, Hermes homes, Gemini CLI
// chat recordings, Aider chat histories, Cursor agent transcripts and
// ChatGPT and Claude.ai chat exports. Readers never abort on bad input: a malformed line is
// reported as a Problem (file, line, why) and skipped, and the rest of the
// source is still read.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/memory"
)

// Problem is input that was skipped, with where and why: the source, the
// file (or directory) and, when known, the 1-based line.
type Problem struct {
	Source string `json:"source"`
	Path   string `json:"path"`
	Line   int    `json:"line,omitempty"`
	Reason string `json:"reason"`
	// Interrupted marks the remains of a write a crash interrupted (NUL
	// padding, a line cut short): those bytes are lost, and there is
	// nothing in the file to fix.
	Interrupted bool `json:"interrupted,omitempty"`
	// Passing marks a file or folder that could not be read for a reason
	// that passes (see Passing): the next try may read it.
	Passing bool `json:"-"`
}

// String is the problem as one line: "source: path:line: reason" (no
// line when it is about a whole file or directory).
func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s: %s:%d: %s", p.Source, p.Path, p.Line, p.Reason)
	}
	return fmt.Sprintf("%s: %s: %s", p.Source, p.Path, p.Reason)
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

// ErrSourceNotFile means a configured source path is neither a file nor
// a folder (a named pipe, a socket, a device).
var ErrSourceNotFile = errors.New("source path is not a file or folder")

// Read reads every file of src (see List) from its start with the reader
// of its kind: the full read of a build. A file that cannot be read is a
// problem, and the rest of the source is still read; the error is for a
// source that cannot be listed at all (ErrSourceMissing) or a stop asked
// by ctx or sink.Record.
func Read(ctx context.Context, src config.Source, sink Sink) error {
	if sink.File == nil {
		sink.File = func(string) {}
	}
	if _, ok := kindIncludes[src.Kind]; !ok {
		return fmt.Errorf("unknown source kind %q", src.Kind)
	}
	listing, err := List(src)
	if err != nil {
		return err
	}
	for _, p := range listing.Problems {
		sink.Problem(p)
	}
	for _, f := range listing.Files {
		if err := ctx.Err(); err != nil {
			return err
		}
		sink.File(f.Path)
		if _, err := ReadFile(ctx, src, f, Cursor{}, sink); err != nil {
			var se *sinkError
			switch {
			case errors.As(err, &se):
				return se.err
			case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
				return err
			}
			sink.Problem(Problem{Source: src.Name, Path: f.Path, Reason: pathErrReason(err), Passing: Passing(err)})
		}
	}
	return nil
}

// DefaultSourceSet is the source set of a kind when the source names none.
func DefaultSourceSet(kind string) string {
	switch kind {
	case config.KindCodex, config.KindClaudeCode, config.KindOpenClaw, config.KindHermes, config.KindGemini, config.KindAider, config.KindCursor,
		config.KindChatExport:
		return "agent-transcripts"
	case config.KindMarkdown:
		return "notes"
	}
	return "external-content"
}

// ProjectFromCwd returns the project named by a working directory: its
// last path element (/Users/me/src/nova gives nova). A git worktree that
// Claude Code made for a session or a sub-agent (claude --worktree, the
// desktop app's sessions, an agent's isolation: worktree) is
// <repository>/.claude/worktrees/<name>: its project is the repository's
// (named after the worktree, each such session was a project of its own,
// "elastic-cori-f29409").
func ProjectFromCwd(cwd string) string {
	cwd = strings.TrimRight(strings.ReplaceAll(cwd, "\\", "/"), "/")
	for {
		i := strings.LastIndex(cwd, "/")
		if i < 0 {
			break
		}
		repo, ok := strings.CutSuffix(cwd[:i], claudeWorktrees)
		if !ok {
			break
		}
		cwd = repo
	}
	if cwd == "" {
		return ""
	}
	i := strings.LastIndex(cwd, "/")
	return cwd[i+1:]
}

// claudeWorktrees is the folder of a repository in which Claude Code
// makes its worktrees.
const claudeWorktrees = "/.claude/worktrees"
