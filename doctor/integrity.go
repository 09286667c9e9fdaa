package doctor

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
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
// fail, names the generation novad falls back to. ok is false when the
// files are intact.
func filesCheck(home paths.Home, cfg config.Config, m *manifest.Manifest, d index.Depth) (Check, bool) {
	const id, title = "index", "Active index"
	err := index.CheckGeneration(home, m, d)
	if err == nil {
		return Check{}, false
	}
	fb, _, ferr := index.NewestIntact(home, cfg, d, m.RunID)
	if ferr != nil {
		return blocked(id, title, CodeGenerationCorrupt,
			fmt.Sprintf("%s; no kept generation is intact either: rebuild with novactl index sync --full", firstLine(err.Error()))), true
	}
	return degraded(id, title, CodeGenerationCorrupt, firstLine(err.Error())+fmt.Sprintf("; novad serves %s, the newest intact kept generation, instead", fb.RunID),
		fmt.Sprintf("make it active (novactl index rollback --to %s) or rebuild (novactl index sync)", fb.RunID)), true
}

// privacyCheck reports a home, state, index, cache or log that other
// users can read: it holds the user's conversations.
func privacyCheck(home paths.Home) Check {
	const id, title = "privacy", "Private home"
	exposed, err := home.Exposed()
	if err != nil && len(exposed) == 0 {
		return degraded(id, title, CodeHomeNotPrivate, "cannot inspect the modes under "+home.Root+": "+firstLine(err.Error()),
			"check the permissions of "+home.Root)
	}
	if len(exposed) == 0 {
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
			len(exposed), home.Root, strings.Join(shown, ", "), home.Root))
}
