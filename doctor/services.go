package doctor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nova-recall/nova/packaging"
)

// CodeServiceTwice is a job registered both by novactl service install and
// by brew services.
const CodeServiceTwice = "service-managed-twice"

// homebrewService is the service check when Homebrew has registered novad
// (brew services start nova) or the source watcher (nova-watch), and false
// when it has not. novactl's own probe cannot see Homebrew's job, and would
// advise installing a second one; two registrations of a job run it twice
// for one home: a second novad stands by (or, before novad stood by, was
// restarted by the service manager every 10 s), a second watcher fails
// and is restarted.
func homebrewService(defs []packaging.Definition) (Check, bool) {
	type pair struct{ ours, brew *packaging.Definition }
	byJob := map[string]*pair{"novad": {}, "watcher": {}}
	for i, d := range defs {
		p := byJob[d.Job]
		if p == nil {
			continue
		}
		switch d.Owner {
		case packaging.OwnerNovactl:
			p.ours = &defs[i]
		case packaging.OwnerHomebrew:
			p.brew = &defs[i]
		}
	}
	var twice, keepBrew, keepOurs []string
	for _, job := range []string{"novad", "watcher"} {
		p := byJob[job]
		if p.ours == nil || p.brew == nil {
			continue
		}
		name := "novad"
		if job == "watcher" {
			name = "the source watcher"
		}
		twice = append(twice, fmt.Sprintf("%s is registered twice, by novactl service install (%s) and by Homebrew (%s)", name, p.ours.Path, p.brew.Path))
		keepBrew = append(keepBrew, p.ours.Remove)
		keepOurs = append(keepOurs, p.brew.Remove)
	}
	if len(twice) > 0 {
		keepBrew = slices.Compact(keepBrew)
		return degraded("service", "Service", CodeServiceTwice, strings.Join(twice, "; "),
			fmt.Sprintf("keep Homebrew's, which follows brew upgrade: %s; or keep novactl's: %s", strings.Join(keepBrew, "; "), strings.Join(keepOurs, "; "))), true
	}
	if brew := byJob["novad"].brew; brew != nil {
		return ready("service", "Service", "managed by Homebrew (brew services, "+brew.Path+")"), true
	}
	return Check{}, false
}
