//go:build unix

package novatest

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// hangTimeout is how long Returns waits before it calls a call hung: far
// longer than any refusal of a named pipe takes, even under the race
// detector on a loaded machine, since it is only reached when the product
// waits on the pipe after all.
const hangTimeout = 20 * time.Second

// Pipes are the paths of named pipes (FIFOs) a test put where Nova
// expects a regular file. An open of a pipe for reading waits for a
// writer; Release is that writer.
type Pipes []string

// Mkfifo makes a named pipe at each path, failing the test when it cannot,
// and releases them (Release) when the test ends, so that a read of one
// that still waits (in a goroutine the test started, or in novad) ends
// with it.
func Mkfifo(t testing.TB, paths ...string) Pipes {
	t.Helper()
	for _, p := range paths {
		Must(t, syscall.Mkfifo(p, 0o600))
	}
	pipes := Pipes(paths)
	t.Cleanup(pipes.Release)
	return pipes
}

// Release opens each pipe for writing and closes it again, a few times,
// which ends every open for reading that waits on it (the reader then
// reads the end of the file). Where no reader waits the open fails at
// once (O_NONBLOCK), and Release does nothing.
func (p Pipes) Release() {
	for _, path := range p {
		// A few times: a reader that read the end may open it again.
		for range 8 {
			if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
		}
	}
}

// Returns runs f, which must refuse the pipes rather than wait on them,
// and returns its result. When f has not returned after a generous
// timeout it releases the pipes, so that f's goroutine ends, and fails
// the test, saying what hung.
func Returns[T any](t testing.TB, pipes Pipes, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	timer := time.NewTimer(hangTimeout)
	defer timer.Stop()
	select {
	case v := <-done:
		return v
	case <-timer.C:
	}
	pipes.Release()
	t.Fatalf("%s did not return: it waited on a named pipe", what)
	var zero T // not reached: Fatalf ends the test's goroutine
	return zero
}
