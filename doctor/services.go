package doctor

import (
	"fmt"

	"github.com/nova-recall/nova/packaging"
)

// CodeServiceTwice is a job registered both by novactl service install and
// by brew services.
const CodeServiceTwice = "service-managed-twice"

// homebrewService is the service check when Homebrew has registered novad
// (brew services start nova), and false when it has not. novactl's own
// probe cannot see Homebrew's job, and would advise installing a second
// one; two registrations make two novad, the second of which finds the
// ports taken and is restarted by the service manager every 10 s.
func homebrewService(defs []packaging.Definition) (Check, bool) {
	var ours, brew *packaging.Definition
	for i, d := range defs {
		if d.Job != "novad" {
			continue
		}
		switch d.Owner {
		case packaging.OwnerNovactl:
			ours = &defs[i]
		case packaging.OwnerHomebrew:
			brew = &defs[i]
		}
	}
	switch {
	case brew == nil:
		return Check{}, false
	case ours != nil:
		return degraded("service", "Service", CodeServiceTwice,
			fmt.Sprintf("novad is registered twice, by novactl service install (%s) and by Homebrew (%s)", ours.Path, brew.Path),
			fmt.Sprintf("keep Homebrew's, which follows brew upgrade: %s; or keep novactl's: %s", ours.Remove, brew.Remove)), true
	default:
		return ready("service", "Service", "managed by Homebrew (brew services, "+brew.Path+")"), true
	}
}
