package index

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nova-recall/nova/atomicfile"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/index/segment"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// Recovery says how a build got past an active generation it could not
// build upon (its files damaged: a checksum that does not match, a file
// missing or cut short). The build starts from the newest intact kept
// generation instead, reads every source file on top of it, and keeps
// the memory of the gone files that generation holds; what only the
// damaged generations held of files that are gone is lost, and Lost says
// which.
type Recovery struct {
	// Damaged is the run id of the active generation that could not be
	// built upon ("" when the manifest itself could not be read).
	Damaged string `json:"damaged,omitempty"`
	// Problem is what was found wrong with it.
	Problem string `json:"problem"`
	// BuiltOn is the intact kept generation the build started from; ""
	// when no kept generation was intact (the build read the sources
	// alone).
	BuiltOn string `json:"builtOn,omitempty"`
	// Lost lists the gone source files whose memory (all of it, or the
	// records read since BuiltOn was built) only the damaged generations
	// held.
	Lost []LostMemory `json:"lost,omitempty"`
	// Unknown is set when what only the damaged generation held cannot be
	// told: its record of its source files cannot be read either, or no
	// manifest names it and a kept generation newer than BuiltOn exists.
	Unknown bool `json:"unknown,omitempty"`
}

// LostMemory is the memory of one gone source file that a build could
// not save: one entry of index/lost.json.
type LostMemory struct {
	Source string `json:"source"`
	Path   string `json:"path"`
	// Records is how many records the damaged generation held of the
	// file; Kept how many of an earlier read of it the build kept (the
	// intact generation read it before it grew or changed).
	Records int `json:"records"`
	Kept    int `json:"kept,omitempty"`
	// Damaged is the generation that held them; Time when the build found
	// them lost.
	Damaged string    `json:"damaged,omitempty"`
	Time    time.Time `json:"time"`
}

// lostFile is where the memory builds could not save is recorded, for
// novactl doctor to say after the sync that found it is long gone from
// view.
func lostFile(home paths.Home) string { return filepath.Join(home.IndexDir(), "lost.json") }

// maxLost bounds index/lost.json: the newest entries are kept.
const maxLost = 1000

// ReadLost returns the memory builds recorded as lost (index/lost.json),
// oldest first; none when nothing was.
func ReadLost(home paths.Home) ([]LostMemory, error) {
	// Only a regular file: a named pipe would block the read, and doctor
	// and every sync with it.
	b, _, err := paths.ReadRegular(lostFile(home), 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []LostMemory
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("read %s: %w", lostFile(home), err)
	}
	return out, nil
}

// recordLost adds lost to index/lost.json.
func recordLost(home paths.Home, lost []LostMemory) error {
	if len(lost) == 0 {
		return nil
	}
	all, err := ReadLost(home)
	if err != nil {
		all = nil // unreadable: start again rather than lose this
	}
	all = append(all, lost...)
	if len(all) > maxLost {
		all = all[len(all)-maxLost:]
	}
	b, _ := json.MarshalIndent(all, "", "  ")
	return atomicfile.Write(lostFile(home), append(b, '\n'), paths.FileMode)
}

// recover finds what a build can start from when the active generation
// cannot be built upon (cause): the newest kept generation that is intact
// (every file hashed: the build carries its chunks and vectors) and that
// the configured embedder can search. It returns nil when none is. The
// recovery says what the damaged generation held of gone files that the
// generation returned does not. A cancelled ctx stops its checks with
// ctx's error: a generation not all hashed is neither intact nor damaged.
func (x *Indexer) recover(ctx context.Context, cause error) (*previous, *Recovery, error) {
	rec := &Recovery{Problem: cause.Error()}
	var except []string
	var damaged *sourceStates
	if m, _, err := manifest.Read(x.home.Manifest()); err == nil {
		rec.Damaged = m.RunID
		except = append(except, m.RunID)
		s, err := readSourceStates(filepath.Join(x.home.IndexDir(), m.GenerationPath, generation.FileSources))
		if err == nil && s.lost == nil {
			damaged = s
		}
	}
	var prev *previous
	_, skipped, _ := newestIntact(x.home, x.cfg, except, func(r *manifest.Manifest) error {
		if err := CheckGeneration(ctx, x.home, r, Deep); err != nil {
			return err
		}
		p, err := x.openBuilt(r)
		if err != nil {
			return err
		}
		prev = p
		return nil
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	for _, err := range skipped {
		x.log.Debug("A kept generation cannot be built upon either", "err", err)
	}
	if prev != nil {
		rec.BuiltOn = prev.manifest.RunID
	}
	switch {
	case damaged != nil:
		rec.Lost = x.lostMemory(damaged, prev, rec.Damaged)
	case rec.Damaged != "":
		rec.Unknown = true // its states are damaged too
	default:
		// No manifest says which generation was active: only a kept
		// generation newer than the one built on can have held more.
		ids := x.promotionOrder()
		for i, id := range ids {
			rec.Unknown = rec.Unknown || (id != rec.BuiltOn && !promotedBefore(ids, i, rec.BuiltOn))
		}
	}
	return prev, rec, nil
}

// lostMemory lists the gone files of which the damaged generation's
// states record memory that prev (nil: nothing) does not hold: a file
// that still exists is read again, and a gone one's memory is carried
// from prev, as prev read it. A file prev read as the damaged generation
// did (same size, time and records) is held whole; one that grew or
// changed since prev read it is lost but for prev's earlier read.
func (x *Indexer) lostMemory(damaged *sourceStates, prev *previous, damagedID string) []LostMemory {
	if x.opts.PruneMissing {
		return nil // dropped anyway, as asked
	}
	held := map[stateKey]int{}
	var read map[stateKey]*FileState
	if prev != nil && prev.gen != nil {
		g := prev.gen
		for d := range g.Len() {
			if _, part := g.Position(d); g.Live(d) && part <= 1 {
				held[stateKey{g.Facet(segment.FacetSourceName, d), g.Facet(segment.FacetPath, d)}]++
			}
		}
		if prev.states.lost == nil {
			read = prev.states.index()
		}
	}
	configured := map[string]bool{}
	for _, s := range x.cfg.Sources {
		configured[s.Name] = true
	}
	now := x.opts.Now().UTC()
	var out []LostMemory
	for _, st := range damaged.Files {
		key := stateKey{st.Source, st.Path}
		if st.Records == 0 || !configured[st.Source] {
			continue
		}
		if _, err := os.Stat(st.Path); !errors.Is(err, fs.ErrNotExist) {
			continue // still there: read again
		}
		kept := held[key]
		if r := read[key]; r != nil && r.Size == st.Size && r.ModTime == st.ModTime && r.Records == st.Records && kept >= st.Records {
			continue // prev read it as the damaged generation did
		}
		if read == nil && kept >= st.Records {
			continue // prev's states are lost: its records are all there is to go by
		}
		out = append(out, LostMemory{Source: st.Source, Path: st.Path, Records: st.Records, Kept: kept, Damaged: damagedID, Time: now})
	}
	slices.SortFunc(out, func(a, b LostMemory) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), strings.Compare(a.Path, b.Path))
	})
	return out
}
