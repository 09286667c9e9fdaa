package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nova-recall/nova/packaging"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/shellword"
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

// homeDefinitions keeps of defs those that serve this home, and returns
// Homebrew's novad definition when it was dropped. brew services runs a
// job with no NOVA_HOME, so it serves ~/.nova alone: for a home that
// NOVA_HOME moves elsewhere (relocated), Homebrew's jobs are not its
// service, and taking them for it reported a home nothing serves as
// managed by Homebrew, and advised restarting a job that serves another.
// novactl's definitions record the home they were installed from.
func homeDefinitions(defs []packaging.Definition, relocated bool) (kept []packaging.Definition, brewNovad *packaging.Definition) {
	if !relocated {
		return defs, nil
	}
	for i, d := range defs {
		switch {
		case d.Owner != packaging.OwnerHomebrew:
			kept = append(kept, d)
		case d.Job == "novad":
			brewNovad = &defs[i]
		}
	}
	return kept, brewNovad
}

// otherHomeService is the service check of a relocated home when the one
// novad service registered is Homebrew's, which serves ~/.nova. novactl
// service install refuses beside Homebrew's job, so the advice stops that
// one first.
func otherHomeService(home paths.Home, brew packaging.Definition) Check {
	return degraded("service", "Service", CodeServiceMissing,
		fmt.Sprintf("no service runs novad for this NOVA_HOME (%s): Homebrew's (%s) serves ~/.nova, not this NOVA_HOME", home.Root, brew.Path),
		"run novad with this NOVA_HOME in a terminal; or, to run it at login, "+brew.Remove+" and novactl service install with this NOVA_HOME (one novad service per user)")
}

// otherHomeDefinition is the service check when novactl's own novad
// definition (st) names another NOVA_HOME than home: the job serves that
// home, so this one has no service even though one is registered and
// running, which "registered and running" would have hidden.
func otherHomeDefinition(home paths.Home, st ServiceStatus) Check {
	return degraded("service", "Service", CodeServiceMissing,
		fmt.Sprintf("no service runs novad for this NOVA_HOME (%s): novactl's %s job serves NOVA_HOME %s, as its definition %s says", home.Root, st.Manager, st.Home, st.Definition),
		fmt.Sprintf("to serve this home at login instead: %s=%s novactl service install (one novad service per user: it moves from %s); or use the home the service serves: %s=%s novactl ...",
			paths.EnvHome, shellword.Quote(home.Root), st.Home, paths.EnvHome, shellword.Quote(st.Home)))
}

// elsewhereStart is the advice that starts program ("novad", "novactl
// index watch") for home when novactl's jobs serve another home (served,
// as their definitions say): starting those jobs would serve that home and
// leave this one as it is, so the advice names both ways to serve this
// one, at once in a terminal or at login from an install that moves the
// jobs here.
func elsewhereStart(home, served, program string) string {
	return fmt.Sprintf("novactl's service jobs serve NOVA_HOME %s, not this one, so starting them leaves this home unserved: run %s=%s %s in a terminal; or, to serve this home at login instead, %s=%s novactl service install (one service per user: it moves from %s)",
		shellword.Quote(served), paths.EnvHome, shellword.Quote(home), program, paths.EnvHome, shellword.Quote(home), shellword.Quote(served))
}

// servedElsewhere returns the NOVA_HOME that the job st is the status of
// serves, as its installed definition says, when that is another home than
// home; "" when it is this home, or when st cannot tell.
func servedElsewhere(st ServiceStatus, home paths.Home) string {
	if !st.Installed || st.Home == "" || sameDir(st.Home, home.Root) {
		return ""
	}
	return st.Home
}

// outdatedDefinitions names novactl's definitions, novad's (st) and the
// source watcher's (asked of watcher when set), that differ from what this
// novactl writes (ServiceStatus.Outdated), and how; "" when none does.
func outdatedDefinitions(ctx context.Context, st ServiceStatus, watcher ServiceProbe) string {
	var out []string
	if st.Installed && st.Outdated != "" {
		out = append(out, "novad's "+st.Manager+" definition "+st.Definition+" is "+st.Outdated)
	}
	if watcher != nil {
		if w, err := watcher.ServiceStatus(ctx); err == nil && w.Installed && w.Outdated != "" {
			out = append(out, "the source watcher's "+w.Manager+" definition "+w.Definition+" is "+w.Outdated)
		}
	}
	return strings.Join(out, "; and ")
}

// sameDir reports whether a and b name one directory: the same path once
// cleaned, or, where both exist, the same file (a symbolic link, /tmp and
// /private/tmp on macOS).
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
