package doctor

import (
	"errors"
	"fmt"

	"github.com/dustin/go-humanize"

	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
)

// CodeDiskSpaceLow: NOVA_HOME's volume has less room than the next full
// sync needs. Search goes on; memory goes stale, since every sync fails.
const CodeDiskSpaceLow = "disk-space-low"

// syncRoom is how much free space a full sync needs, as a multiple of the
// active generation's size: it writes the new generation beside the
// active one and, while embedding, a temporary vector file (2.2 times the
// generation at most, measured on a full tmpfs).
const syncRoom = 2.5

// minRoom is the room a first sync, or one of a small index, needs.
const minRoom = 64 << 20

// diskCheck reports whether NOVA_HOME's volume has room for the next full
// sync. m is the active manifest (nil when there is none). With the disk
// full, every check but this one stayed Ready while syncs failed.
func diskCheck(home paths.Home, m *manifest.Manifest, freeSpace func(string) (uint64, error)) (Check, bool) {
	const id, title = "disk", "Disk space"
	free, err := freeSpace(home.Root)
	if err != nil {
		return Check{}, false // not knowable here: no check rather than a guess
	}
	need := uint64(minRoom)
	var active int64
	if m != nil {
		active = m.Bytes()
		need = max(need, uint64(syncRoom*float64(active)))
	}
	if free >= need {
		return ready(id, title, fmt.Sprintf("%s free on the volume of %s", humanize.IBytes(free), home.Root)), true
	}
	msg := fmt.Sprintf("%s free on the volume of %s; a full sync needs about %s", humanize.IBytes(free), home.Root, humanize.IBytes(need))
	if active > 0 {
		msg += fmt.Sprintf(" (the active generation is %s)", humanize.IBytes(uint64(active)))
	}
	return degraded(id, title, CodeDiskSpaceLow, msg,
		"free space on that volume, then novactl index sync; search goes on meanwhile, but syncs fail and memory goes stale"), true
}

// VolumeFree is the space an unprivileged user may still write on the
// volume that holds path (or, for a path not made yet, the nearest folder
// above it); an error where the platform cannot tell. A user's disk quota
// is not counted.
func VolumeFree(path string) (uint64, error) { return volumeFree(path) }

// errNoFreeSpace is freeSpace's answer on a platform that cannot tell.
var errNoFreeSpace = errors.New("free space is not known on this platform")
