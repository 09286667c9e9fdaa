package doctor

import (
	"errors"
	"fmt"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/index"
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
// sync. m is the active manifest (nil when there is none); st is the
// watcher's state (nil when there is none). With the disk full, every
// check but this one stayed Ready while syncs failed.
func diskCheck(home paths.Home, m *manifest.Manifest, st *freshness.State, freeSpace func(string) (uint64, error)) (Check, bool) {
	const id, title = "disk", "Disk space"
	if c, ok := quotaCheck(home, m, st); ok {
		return c, true
	}
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

// quotaCheck reports a used-up disk quota: the watcher's last sync failed
// with EDQUOT and no generation was promoted since (a sync by hand that
// succeeded). The volume's free space does not count a user's quota, so
// the free-space check alone said there was plenty of room.
func quotaCheck(home paths.Home, m *manifest.Manifest, st *freshness.State) (Check, bool) {
	if st == nil || st.LastSync == nil || st.LastSync.Result != freshness.ResultFailed || st.LastSync.NoRoom != index.CauseQuota {
		return Check{}, false
	}
	if m != nil && !m.CreatedAt.Before(st.LastSync.FinishedAt) {
		return Check{}, false
	}
	return degraded("disk", "Disk space", CodeDiskSpaceLow,
		fmt.Sprintf("your disk quota on the volume of %s is used up: the watcher's last sync failed on it (%s), whatever room the volume itself has", home.Root, st.LastSync.FinishedAt.Local().Format(time.DateTime)),
		"free space within your quota (or have it raised); the watcher syncs again by itself, and search goes on meanwhile with memory going stale"), true
}

// errNoFreeSpace is freeSpace's answer on a platform that cannot tell.
var errNoFreeSpace = errors.New("free space is not known on this platform")
