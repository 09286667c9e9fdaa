package doctor

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/index/ingest"
	"github.com/nova-recall/nova/manifest"
)

// SkippedFile is a source file whose last read skipped some of its input
// (a binary file, malformed lines): that input is not in memory.
type SkippedFile struct {
	Source string `json:"source"`
	Path   string `json:"path"`
	// Count is how many problems the read met (a malformed line, a
	// record with binary text, the whole file when it is binary), and
	// the records left out for an id an earlier record of the source has.
	Count int `json:"count"`
	// Reason is why the first was skipped, with its line when it has
	// one; empty when the file was last read by a Nova that did not
	// record it (novactl index sync --full reads it again).
	Reason string `json:"reason,omitempty"`
	// Interrupted is how many of Count are the remains of writes a crash
	// interrupted (NUL padding, a line cut short): lost, and nothing in
	// the file to fix. A file with only those is not named as skipped.
	Interrupted int `json:"interrupted,omitempty"`
}

// shownSkipped is how many skipped files the input check names; the
// report's SkippedInput lists them all.
const shownSkipped = 3

// inputCheck reports the files of configured sources whose last read,
// as the active generation m records it (states, or err when they cannot
// be read: index.FileStates), skipped input, and returns them all, in the
// configuration's order of sources. Files gone from their source are not
// listed: nothing can be fixed there, and the gone check names them.
func inputCheck(cfg config.Config, m *manifest.Manifest, states []index.FileState, err error) (Check, []SkippedFile) {
	const id, title = "input", "Source input"
	if errors.Is(err, index.ErrBaseStateLost) {
		// A rollback would drop the memory added since, for nothing: the
		// sync reads the sources again on top of this generation.
		return degraded(id, title, CodeGenerationCorrupt, fmt.Sprintf("generation %s: %s; memory is intact", m.RunID, firstLine(err.Error())),
			"novactl index sync reads every source file again and records it anew"), nil
	}
	if err != nil {
		return degraded(id, title, CodeGenerationCorrupt, fmt.Sprintf("%s of generation %s cannot be read: %s", generation.FileSources, m.RunID, firstLine(err.Error())),
			"novactl index sync writes a new generation; novactl index rollback goes back to a kept one"), nil
	}
	order := map[string]int{}
	for i, s := range cfg.Sources {
		order[s.Name] = i
	}
	var all, skipped []SkippedFile
	interrupted := 0
	// Skipped files with searchable records, by path: removing one, or
	// leaving it out, would drop those too.
	searchable := map[[2]string]bool{}
	for _, s := range states {
		if s.Unreadable {
			continue // no read got to its input: the source's check names it
		}
		if _, configured := order[s.Source]; s.Problems+len(s.Dropped) > 0 && s.Gone.IsZero() && configured {
			f := SkippedFile{Source: s.Source, Path: s.Path, Count: s.Problems + len(s.Dropped), Reason: s.Problem, Interrupted: s.Interrupted}
			if f.Reason == "" && s.Problems == 0 {
				f.Reason = duplicateReason(s.Source, s.Dropped[0])
			}
			all = append(all, f)
			if f.Count > f.Interrupted {
				skipped = append(skipped, f)
				searchable[[2]string{s.Source, s.Path}] = s.Records > 0
			} else {
				interrupted++
			}
		}
	}
	// In the configuration's order, as sync reads them; by path within a
	// source.
	for _, l := range [][]SkippedFile{all, skipped} {
		slices.SortStableFunc(l, func(a, b SkippedFile) int { return cmp.Compare(order[a.Source], order[b.Source]) })
	}
	if len(skipped) == 0 {
		msg := "no source file had input skipped when it was last read"
		if interrupted > 0 {
			// An agent killed mid-write leaves a cut line in its live
			// transcript; the advice to fix or remove the file was wrong.
			msg = fmt.Sprintf("no input to fix; %s the remains of a write a crash interrupted (the cut line is lost, the rest is searchable): %s",
				plural(interrupted, "file holds", "files hold"), all[0].describe())
		}
		return ready(id, title, msg), all
	}
	names := make([]string, 0, shownSkipped)
	for _, s := range skipped[:min(len(skipped), shownSkipped)] {
		names = append(names, s.describe())
	}
	list := strings.Join(names, "; ")
	// A line newer than its reader is no fault of the file (an agent's
	// transcript, most often): removing it would lose the memory the
	// reader did understand.
	newer, kept := 0, 0
	for _, s := range skipped {
		switch {
		case strings.Contains(s.Reason, ingest.ReasonUnknownShape):
			newer++
		case searchable[[2]string{s.Source, s.Path}]:
			kept++
		}
	}
	advice := skippedAdvice(len(skipped), len(skipped)-newer, kept)
	if n := len(skipped) - shownSkipped; n > 0 {
		list += fmt.Sprintf("; and %d more", n)
		advice += "; novactl doctor --json lists them all"
	}
	switch {
	case newer == len(skipped):
		advice = "each file is as its agent wrote it, in a format newer than this Nova reads (the rest of it is searchable): do not edit or remove it; update Nova, whose next sync reads it again"
		if len(skipped) > shownSkipped {
			advice += "; novactl doctor --json lists them all"
		}
	case newer > 0:
		advice += "; but a file whose reason is a " + ingest.ReasonUnknownShape + " is as its agent wrote it: do not remove it, update Nova"
	}
	files := "1 file"
	if len(skipped) > 1 {
		files = fmt.Sprintf("%d files", len(skipped))
	}
	return degraded(id, title, CodeInputSkipped, fmt.Sprintf("input of %s was skipped when last read and is not searchable: %s", files, list), advice), all
}

// skippedAdvice is what to do about the files whose input was skipped
// (files of them named), n of which are not newer than their readers,
// kept of those having records that are searchable: removing such a
// file, or leaving it out (sources[].exclude), drops those records with
// the bad input, so only its input is to be fixed. A file of which
// nothing was read (a binary note) loses nothing.
func skippedAdvice(files, n, kept int) string {
	switch {
	case kept == 0 && files == 1:
		return "fix or remove the file (or leave it out: sources[].exclude), then novactl index sync"
	case kept == 0:
		return "fix or remove the files (or leave them out: sources[].exclude), then novactl index sync"
	case kept == n && files == 1:
		return "fix the input named in the file, then novactl index sync; the rest of the file is searchable: removing it, or leaving it out (sources[].exclude), would drop that memory too"
	case kept == n:
		return "fix the input named in each file, then novactl index sync; the rest of each file is searchable: removing one, or leaving it out (sources[].exclude), would drop that memory too"
	}
	return "fix the input named in each file, then novactl index sync; removing a file, or leaving it out (sources[].exclude), drops whatever of it is searchable too"
}

// duplicateReason is why a file's record of chunk id was left out: an
// earlier record of its source has its id (index.FileState's Dropped,
// which the sync that met it reported with its line). A record whose
// chunk id is its first chunk's (memory.ChunkID: "notes:e1", "notes:e1#1"
// for the first piece of a record cut in several, and one more '#' after
// an id that ends like a piece's) is named by its own id.
func duplicateReason(source, chunkID string) string {
	id := strings.TrimPrefix(chunkID, source+":")
	if i := strings.LastIndexByte(id, '#'); i >= 0 && i < len(id)-1 && strings.Trim(id[i+1:], "0123456789") == "" {
		id = id[:i] // a piece: an id ending so is followed by '#' when whole
	}
	id = strings.TrimSuffix(id, "#")
	return fmt.Sprintf("duplicate id %q: an earlier record of the source has it, and only the first is kept", id)
}

// shownGone is how many gone files the gone check names.
const shownGone = 3

// goneCheck lists the source files that disappeared while the active
// generation keeps their memory (states, as index.FileStates gives them);
// nothing when there are none. The generation is the truth: the
// watcher's state is as old as its last sync, and still named files that
// novactl index sync --prune-missing had dropped since.
func goneCheck(states []index.FileState) []Check {
	var gone []string
	for _, s := range states {
		if !s.Gone.IsZero() {
			gone = append(gone, s.Path)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	slices.Sort(gone)
	names := strings.Join(gone[:min(len(gone), shownGone)], ", ")
	if n := len(gone) - shownGone; n > 0 {
		names += fmt.Sprintf(" and %d more", n)
	}
	files := plural(len(gone), "source file that no longer exists", "source files that no longer exist")
	return []Check{ready("gone", "Files gone", fmt.Sprintf("memory is kept for %s: %s (novactl index sync --prune-missing drops it)", files, names))}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// describe is the file as the input check names it: "PATH: REASON (N
// more in this file)".
func (s SkippedFile) describe() string {
	if s.Reason == "" {
		return fmt.Sprintf("%s: %s (novactl index sync --full says which)", s.Path, problems(s.Count))
	}
	if s.Count > 1 {
		return fmt.Sprintf("%s: %s (%d more in this file)", s.Path, s.Reason, s.Count-1)
	}
	return s.Path + ": " + s.Reason
}

func problems(n int) string {
	if n == 1 {
		return "1 problem"
	}
	return fmt.Sprintf("%d problems", n)
}

// recordedFiles is what the active generation recorded of each source
// file (its index.FileStates), by source and path.
type recordedFiles map[[2]string]*index.FileState

// newRecordedFiles indexes states; nil when there are none (no index,
// or its file states cannot be read).
func newRecordedFiles(states []index.FileState) recordedFiles {
	if len(states) == 0 {
		return nil
	}
	r := make(recordedFiles, len(states))
	for i := range states {
		r[[2]string{states[i].Source, states[i].Path}] = &states[i]
	}
	return r
}

// has reports whether the generation recorded f of source s as read
// (not as gone).
func (r recordedFiles) has(s config.Source, f ingest.File) bool {
	st, ok := r[[2]string{s.Name, f.Path}]
	return ok && st.Gone.IsZero()
}

// unreadable returns the state of f of source s when the generation
// recorded it as a file a read failed on (index.FileState.Unreadable) and
// it is still the same size and time; nil otherwise.
func (r recordedFiles) unreadable(s config.Source, f ingest.File) *index.FileState {
	if st := r[[2]string{s.Name, f.Path}]; st != nil && st.Unreadable && st.Gone.IsZero() && r.unchanged(s, f) {
		return st
	}
	return nil
}

// anyUnreadable reports whether the generation recorded a file of source
// s as one a read failed on.
func (r recordedFiles) anyUnreadable(s config.Source) bool {
	for k, st := range r {
		if k[0] == s.Name && st.Unreadable && st.Gone.IsZero() {
			return true
		}
	}
	return false
}

// unchanged reports whether f of source s is as the generation recorded
// it when it was last read: the same size and time, and no companion (a
// database's write-ahead log) changed later. Such a file is in memory as
// it is, whatever its time says against the clock (a share whose clock
// runs ahead).
func (r recordedFiles) unchanged(s config.Source, f ingest.File) bool {
	if !r.has(s, f) {
		return false
	}
	st := r[[2]string{s.Name, f.Path}]
	mod := f.Info.ModTime()
	return st.Size == f.Info.Size() && st.ModTime == mod.UnixNano() &&
		ingest.LastChange(s.Kind, f.Path, mod).Equal(mod)
}
