package index

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/nova-recall/nova/manifest"
)

// DiskFullError is an index operation that stopped because the file
// system holding NOVA_HOME ran out of space. Nothing is lost: the
// manifest still names the generation that was active, and the next
// writer removes what this one left. Its message says so and what to do.
type DiskFullError struct {
	// Home is NOVA_HOME.
	Home string
	// Active is the run id still active and served; "" when nothing was
	// ever promoted.
	Active string
	Err    error
}

func (e *DiskFullError) Error() string {
	still := "no generation was promoted yet"
	if e.Active != "" {
		still = "generation " + e.Active + " is still active and served"
	}
	if ie, ok := errors.AsType[*interruptedError](e.Err); ok {
		return fmt.Sprintf("the disk holding %s is full (%v); nothing is lost: %s, and %s waits in place to be made active. Free space on that disk and run novactl index promote to finish it", e.Home, ie.err, still, ie.runID)
	}
	return fmt.Sprintf("the disk holding %s is full (%v); nothing is lost: %s, and the next run removes what this one left. Free space on that disk and run it again", e.Home, e.Err, still)
}

// Unwrap makes errors.Is(err, syscall.ENOSPC) true.
func (e *DiskFullError) Unwrap() error { return e.Err }

// diskFull turns an error that a full disk caused into a *DiskFullError;
// other errors are returned as they are.
func (x *Indexer) diskFull(err error) error {
	if _, done := errors.AsType[*DiskFullError](err); done || !errors.Is(err, syscall.ENOSPC) {
		return err
	}
	active := ""
	if m, _, rerr := manifest.Read(x.home.Manifest()); rerr == nil {
		active = m.RunID
	}
	return &DiskFullError{Home: x.home.Root, Active: active, Err: err}
}
