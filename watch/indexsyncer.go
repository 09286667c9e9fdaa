package watch

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/nova-recall/nova/index"
)

// IndexSyncer is the Syncer of novactl index watch: the watcher's syncs
// run through x, the one writer of the index.
func IndexSyncer(x *index.Indexer) Syncer { return indexSyncer{x} }

type indexSyncer struct{ x *index.Indexer }

func (s indexSyncer) Sync(ctx context.Context) (Outcome, error) {
	r, err := s.x.Sync(ctx)
	// A sync's peak heap is large next to an idle watcher's: hand it back
	// now rather than when the scavenger gets to it.
	defer debug.FreeOSMemory()
	if errors.Is(err, index.ErrLocked) {
		return Outcome{}, fmt.Errorf("%w: %v", ErrBusy, err)
	}
	if errors.Is(err, index.ErrNothingToIndex) {
		return Outcome{}, fmt.Errorf("%w: %w", ErrNothingYet, err)
	}
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{RunID: r.Active(), Chunks: r.Build.Chunks, GoneFiles: []string{}, Unsettled: r.Build.Unsettled}
	if r.Compaction != nil && r.Compaction.Promote != nil {
		out.Chunks = r.Compaction.Promote.Chunks
	} else if r.Promote != nil {
		out.Chunks = r.Promote.Chunks
	}
	// The build lists every gone file whose memory it keeps: that list,
	// not what the watcher happened to see disappear, is the truth.
	for _, src := range r.Build.Sources {
		out.GoneFiles = append(out.GoneFiles, src.Gone...)
	}
	return out, nil
}
