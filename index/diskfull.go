package index

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/nova-recall/nova/manifest"
)

// DiskFullError is an index operation that stopped because a write found
// no room: the file system holding NOVA_HOME ran out of space (ENOSPC),
// the user's disk quota on it is used up (EDQUOT), or a file grew past
// the largest size allowed (EFBIG: a file size limit such as ulimit -f,
// or the file system's own, 4 GiB on FAT32). Nothing is lost: the
// manifest still names the generation that was active, and the next
// writer removes what this one left. Its message says which of the
// three it was and what to do.
type DiskFullError struct {
	// Home is NOVA_HOME.
	Home string
	// Active is the run id still active and served; "" when nothing was
	// ever promoted.
	Active string
	Err    error
	// retrying (Retrying) says the operation runs again by itself, in
	// retry when that is > 0: the advice is then to give room, not to run
	// it again.
	retrying bool
	retry    time.Duration
}

func (e *DiskFullError) Error() string {
	still := "no generation was promoted yet"
	if e.Active != "" {
		still = "generation " + e.Active + " is still active and served"
	}
	what, fix := e.room()
	if ie, ok := errors.AsType[*interruptedError](e.Err); ok {
		return fmt.Sprintf("%s (%v); nothing is lost: %s, and %s waits in place to be made active. %s and run novactl index promote to finish it", what, ie.err, still, ie.runID, fix)
	}
	if e.retrying {
		when := "by itself, backing off,"
		if e.retry > 0 {
			when = "by itself in " + e.retry.String() + ","
		}
		return fmt.Sprintf("%s (%v); nothing is lost: %s, and the next sync removes what this one left. %s: the watcher syncs again %s and carries on once a sync succeeds",
			what, e.Err, still, strings.TrimSuffix(fix, ","), when)
	}
	return fmt.Sprintf("%s (%v); nothing is lost: %s, and the next run removes what this one left. %s and run it again", what, e.Err, still, fix)
}

// Retrying is e as the source watcher says it, which syncs again by
// itself after in (its back-off; 0 names no wait, for its state, which is
// read at any later time): "run it again" would send whoever reads its
// log or doctor to run by hand what the watcher does anyway. An operation
// left waiting for novactl index promote keeps that advice.
func (e *DiskFullError) Retrying(in time.Duration) error {
	if _, ok := errors.AsType[*interruptedError](e.Err); ok {
		return e
	}
	c := *e
	c.retrying, c.retry = true, in
	return &c
}

// room says what ran out and what gives room again. A file too large is
// no full disk: freeing space would not help, and saying so sent people
// looking for space they had.
func (e *DiskFullError) room() (what, fix string) {
	switch {
	case errors.Is(e.Err, syscall.EFBIG):
		return "a file under " + e.Home + " grew past the largest size allowed here, by a file size limit such as ulimit -f or by the file system",
			"Raise that limit, or move NOVA_HOME to a file system that holds larger files,"
	case errors.Is(e.Err, syscall.EDQUOT):
		return "your disk quota on the disk holding " + e.Home + " is used up",
			"Free space within your quota"
	}
	return "the disk holding " + e.Home + " is full", "Free space on that disk"
}

// What ran out, as DiskFullError.Cause names it for scripts (novactl
// index sync --json) and the watcher's state (doctor).
const (
	// CauseNoSpace: the file system is full (ENOSPC).
	CauseNoSpace = "no-space"
	// CauseQuota: the user's disk quota is used up (EDQUOT), which the
	// volume's free space does not show.
	CauseQuota = "quota"
	// CauseFileTooLarge: a file grew past a size limit (EFBIG).
	CauseFileTooLarge = "file-too-large"
)

// Cause names what ran out: CauseNoSpace, CauseQuota or
// CauseFileTooLarge.
func (e *DiskFullError) Cause() string {
	switch {
	case errors.Is(e.Err, syscall.EFBIG):
		return CauseFileTooLarge
	case errors.Is(e.Err, syscall.EDQUOT):
		return CauseQuota
	}
	return CauseNoSpace
}

// Unwrap makes errors.Is(err, syscall.ENOSPC) (or EDQUOT, EFBIG) true.
func (e *DiskFullError) Unwrap() error { return e.Err }

// noRoom reports whether err is a write that found no room.
func noRoom(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EFBIG)
}

// diskFull turns an error that a write finding no room caused into a
// *DiskFullError; other errors are returned as they are.
func (x *Indexer) diskFull(err error) error {
	if _, done := errors.AsType[*DiskFullError](err); done || !noRoom(err) {
		return err
	}
	active := ""
	if m, _, rerr := manifest.Read(x.home.Manifest()); rerr == nil {
		active = m.RunID
	}
	return &DiskFullError{Home: x.home.Root, Active: active, Err: err}
}

// giveRoomBack, deferred with the lock held, removes what a build that
// ran out of room (*err) wrote and no generation or candidate names, as
// the next writer would at its start: a large build's segments would
// otherwise hold the disk full until then, minutes later when the watcher
// backs off.
func (x *Indexer) giveRoomBack(err *error) {
	if *err != nil && noRoom(*err) {
		x.cleanInterrupted()
	}
}
