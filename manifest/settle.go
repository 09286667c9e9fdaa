package manifest

// settleReads is how many times Settle hands a reader the manifest at
// most: a promotion takes well under a second, so three readings that
// each saw another one move the manifest are syncs back to back, where
// the last reading is as good as any.
const settleReads = 3

// Settle reads the manifest at path and calls use with what it read (m
// nil and err set when it cannot be read), then reads it again. A reader
// that takes no lock (doctor, index list) may have a promotion beside it
// make another generation active and retire the one it read, which then
// looks damaged or gone: while the manifest changed under use (its bytes
// differ, or it can be read now where it could not), use is called again
// with the manifest as it is now, three times in all at most. An error
// from use (a cancelled context) stops it and is returned. It is safe for
// concurrent use; use is called on the caller's goroutine.
func Settle(path string, use func(m *Manifest, hash string, err error) error) error {
	m, hash, err := Read(path)
	for n := 1; ; n++ {
		if uerr := use(m, hash, err); uerr != nil {
			return uerr
		}
		now, h, rerr := Read(path)
		if rerr != nil || h == hash || n == settleReads {
			return nil
		}
		m, hash, err = now, h, rerr
	}
}
