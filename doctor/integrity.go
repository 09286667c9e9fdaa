package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/inert"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/shellword"
)

// servingCheck says what novad reports about the generation it serves
// when that is not simply the verified active one: a fallback to an older
// intact generation, an in-memory copy of one whose files are damaged, or
// nothing at all. ok is false when there is nothing to report.
func servingCheck(h *api.Health) (Check, bool) {
	const id, title = "reload", "Hot reload"
	in := h.Integrity
	switch in.Status {
	case api.IntegrityFallback:
		active := in.ActiveRunID
		if active == "" {
			active = "the manifest's generation (the manifest is unreadable)"
		}
		return degraded(id, title, CodeReloadFailed,
			fmt.Sprintf("novad serves %s because %s failed verification: %s", in.ServedRunID, active, firstLine(in.Problem)),
			fmt.Sprintf("make it active (novactl index rollback --to %s) or rebuild (novactl index sync)", in.ServedRunID)), true
	case api.IntegrityDamaged:
		return degraded(id, title, CodeReloadFailed,
			fmt.Sprintf("the files of %s are gone from disk (%s) and no kept generation is intact; novad answers from the files it mapped before",
				in.ServedRunID, firstLine(in.Problem)),
			"rebuild now (novactl index sync --full): a restart would serve nothing"), true
	case api.IntegrityNone:
		return blocked(id, title, CodeReloadFailed,
			fmt.Sprintf("novad serves nothing: %s failed verification (%s) and no kept generation is intact; rebuild with novactl index sync --full",
				orManifest(in.ActiveRunID), firstLine(in.Problem))), true
	}
	if !h.Reload.LastReloadSuccessful {
		return degraded(id, title, CodeReloadFailed, firstLine(h.Reload.LastError),
			"the previous generation keeps serving; rebuild with novactl index sync"), true
	}
	return Check{}, false
}

func orManifest(runID string) string {
	if runID == "" {
		return "the manifest"
	}
	return runID
}

// filesCheck verifies the active generation's files at depth d (sizes and
// files changed since they were sealed, or every checksum) and, when they
// fail, names the generation novad falls back to (running: whether novad
// answered, so serves it now rather than would). ok is false when the
// files are intact.
func filesCheck(ctx context.Context, home paths.Home, cfg config.Config, m *manifest.Manifest, d index.Depth, running bool) (Check, bool) {
	const id, title = "index", "Active index"
	err := index.CheckGeneration(ctx, home, m, d)
	if err == nil {
		return Check{}, false
	}
	fb, _, ferr := index.NewestIntact(ctx, home, cfg, d, m.RunID)
	if ferr != nil {
		return blocked(id, title, CodeGenerationCorrupt,
			fmt.Sprintf("%s; no kept generation is intact either: rebuild with novactl index sync, which reads the sources alone (the memory of source files that are gone cannot be saved: the sync names it)",
				firstLine(err.Error()))), true
	}
	serves := "novad serves %s, the newest intact kept generation, instead"
	if !running {
		serves = "novad would serve %s, the newest intact kept generation, when it starts"
	}
	return degraded(id, title, CodeGenerationCorrupt, firstLine(err.Error())+"; "+fmt.Sprintf(serves, fb.RunID),
		fmt.Sprintf("rebuild (novactl index sync: it builds on %s and reads every source file again, keeping the memory %s holds of files that are gone, and names what only the damaged generation held) or make it active as it is (novactl index rollback --to %s)",
			fb.RunID, fb.RunID, fb.RunID)), true
}

// shownLost is how many files the lost-memory check names.
const shownLost = 3

// lostCheck names the memory of gone source files that a sync could not
// save (a damaged generation, and no intact kept generation that held
// it), as index/lost.json records it: the sync said so once, and the
// person who reads doctor later must hear it too. A file back in its
// place is no longer lost: the next sync reads it. ok is false when
// nothing is lost.
func lostCheck(home paths.Home) (Check, bool) {
	const id, title = "lost", "Memory lost"
	file := filepath.Join(home.IndexDir(), "lost.json")
	lost, err := index.ReadLost(home)
	if err != nil {
		// No sync reads or repairs it (the next loss starts it afresh),
		// so "see" it left the check Degraded for good; moved aside, it
		// is kept for the person to read.
		return degraded(id, title, CodeMemoryLost, "the record of memory lost to a damaged generation cannot be read: "+firstLine(err.Error()),
			fmt.Sprintf("it is only that record: the index and its memory do not depend on it, and no sync repairs it (one that finds memory lost writes it anew, without what it held); move it aside to clear this check and keep it to read: mv %s %s",
				shellword.Quote(file), shellword.Quote(file+".unreadable"))), true
	}
	var still []index.LostMemory
	for _, l := range lost {
		if _, err := os.Stat(l.Path); errors.Is(err, fs.ErrNotExist) {
			still = append(still, l)
		}
	}
	if len(still) == 0 {
		return Check{}, false
	}
	records := 0
	var names []string
	for _, l := range still {
		records += l.Records - l.Kept
		if len(names) < shownLost {
			names = append(names, fmt.Sprintf("%s (%s, found lost %s when %s was damaged)", inert.Text(l.Path), plural(l.Records-l.Kept, "record", "records"),
				l.Time.Local().Format("2006-01-02"), orManifest(l.Damaged)))
		}
	}
	more := ""
	if len(still) > len(names) {
		more = fmt.Sprintf(" and %d more", len(still)-len(names))
	}
	are, were := "are", "were"
	if len(still) == 1 {
		are = "is"
	}
	if records == 1 {
		were = "was"
	}
	return degraded(id, title, CodeMemoryLost,
		fmt.Sprintf("%s of %s that %s gone %s lost: only a damaged generation held them, and no intact kept generation did: %s%s",
			plural(records, "record", "records"), plural(len(still), "source file", "source files"), are, were, strings.Join(names, "; "), more),
		// Moved aside, not removed: it is the one record of what was lost.
		fmt.Sprintf("the sources no longer hold them: if you have copies (a backup), put the files back where they were and run novactl index sync; %s lists them all, and moving it aside clears this check and keeps it: mv %s %s",
			file, shellword.Quote(file), shellword.Quote(file+".seen"))), true
}

// privacyCheck reports a home that novad and every index command refuse
// (refusal, from paths.Home.Refusal: others control the way to it), or
// else a home, state, index, cache or log that other users can read: it
// holds the user's conversations.
func privacyCheck(home paths.Home, refusal error) Check {
	const id, title = "privacy", "Private home"
	if refusal != nil {
		fix := "set NOVA_HOME to a place of yours"
		if e, ok := errors.AsType[*paths.UnsafePathError](refusal); ok && e.Writable {
			// The sticky bit would do too, but a folder that needs
			// it is one others share: a place of the user's is better.
			fix = fmt.Sprintf("if %s is yours, take the others' write access away (chmod go-w %s), else set NOVA_HOME to a place of yours", e.Path, shellword.Quote(e.Path))
		}
		return blocked(id, title, CodeHomePathUnsafe,
			fmt.Sprintf("novad and every novactl index command refuse this home: %s; fix: %s", firstLine(refusal.Error()), fix))
	}
	exposed, err := home.Exposed()
	if err != nil && len(exposed) == 0 {
		return degraded(id, title, CodeHomeNotPrivate, "cannot inspect the modes under "+home.Root+": "+firstLine(err.Error()),
			"check the permissions of "+home.Root)
	}
	if len(exposed) == 0 {
		if _, err := os.Stat(home.Root); errors.Is(err, fs.ErrNotExist) {
			return ready(id, title, home.Root+" does not exist yet; Nova makes it private to you (0700/0600) when it first writes there")
		}
		return ready(id, title, home.Root+" and everything Nova wrote in it are private to you (0700/0600)")
	}
	var shown []string
	for _, e := range exposed[:min(3, len(exposed))] {
		rel, _ := filepath.Rel(home.Root, e.Path)
		if rel == "." {
			rel = home.Root
		}
		shown = append(shown, fmt.Sprintf("%s %04o", rel, e.Mode))
	}
	return blocked(id, title, CodeHomeNotPrivate,
		fmt.Sprintf("%d paths under %s are open to other users (%s); fix: chmod -R go= %s (novad and every novactl index command also do it when they start)",
			len(exposed), home.Root, strings.Join(shown, ", "), shellword.Quote(home.Root)))
}
