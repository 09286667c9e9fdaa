package novatest

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// endOfOutput is written through a Terminal's slave once the program is
// done, and its output is what arrived before it. Closing the slave and
// reading the master until the reads ended lost the last bytes once in
// CI (of verify's three progress redraws only the first arrived), for a
// cause not reproduced; with the mark the end needs no close, and reads
// that stop early say why.
const endOfOutput = "<end of the test's terminal output>"

// outputWait bounds how long Output waits for the end mark; a variable
// for the test of the bound.
var outputWait = time.Minute

// Terminal is a pseudo-terminal (see [PTY]) whose master is read on a
// goroutine from the start, so a program writing to it never blocks on a
// full terminal. The program gets [Terminal.Slave] (a child gets its own
// copies of it); the test keeps its own copy open, and [Terminal.Output]
// returns what the program wrote once it is done. Seen and Type may be
// called from any goroutine; both ends close when the test ends.
type Terminal struct {
	master, slave *os.File
	onRead        func(*Terminal, string)

	mu      sync.Mutex
	buf     bytes.Buffer
	readErr error         // why the reads ended, once they have
	arrived chan struct{} // signalled after each read
	ended   chan struct{} // closed when the reads have ended
}

// NewTerminal opens a pseudo-terminal and starts reading it. onRead, when
// not nil, is called on the reading goroutine after each read that
// brought bytes, with all the terminal showed so far: a test answers the
// terminal's queries from it ([Terminal.Type]) or acts on what it shows.
// It must not call t.Fatal, and it is not called once the test has ended.
// Like [PTY], NewTerminal skips the test where there is no pseudo-terminal.
func NewTerminal(t testing.TB, onRead func(term *Terminal, seen string)) *Terminal {
	t.Helper()
	master, slave := PTY(t)
	term := &Terminal{master: master, slave: slave, onRead: onRead,
		arrived: make(chan struct{}, 1), ended: make(chan struct{})}
	go term.read()
	// Runs before PTY's cleanup: the reads end, and onRead with them,
	// before the test does.
	t.Cleanup(func() {
		master.Close()
		<-term.ended
	})
	return term
}

func (term *Terminal) read() {
	defer close(term.ended)
	b := make([]byte, 4096)
	for {
		n, err := term.master.Read(b)
		term.mu.Lock()
		term.buf.Write(b[:n])
		term.readErr = err
		seen := term.buf.String()
		term.mu.Unlock()
		if n > 0 && term.onRead != nil {
			term.onRead(term, seen)
		}
		select {
		case term.arrived <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

// Slave returns the terminal's program side, the file a program writes
// to as to a person's terminal.
func (term *Terminal) Slave() *os.File { return term.slave }

// Type writes s to the terminal's keyboard side, as a person typing or a
// terminal emulator answering a query.
func (term *Terminal) Type(s string) error {
	_, err := term.master.WriteString(s)
	return err
}

// Seen returns what the terminal showed so far.
func (term *Terminal) Seen() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.buf.String()
}

// Output returns all the program wrote to the terminal. Call it once the
// program is done: an in-process command has returned, a child has exited
// (its Wait returned). It writes an end mark through the test's own slave
// and waits up to a minute for the mark to be read; reads that stop
// first, or a mark that does not come, fail the test with what arrived.
func (term *Terminal) Output(t testing.TB) string {
	t.Helper()
	if _, err := term.slave.WriteString(endOfOutput); err != nil {
		t.Fatalf("mark the end of the terminal's output: %v; it showed %q", err, term.Seen())
	}
	timeout := time.After(outputWait)
	for open := true; ; {
		term.mu.Lock()
		got, err := term.buf.String(), term.readErr
		term.mu.Unlock()
		if before, _, found := strings.Cut(got, endOfOutput); found {
			return before
		}
		if !open {
			t.Fatalf("reading the terminal stopped (%v) before its output's end arrived; it showed %q", err, got)
		}
		select {
		case <-term.arrived:
		case <-term.ended:
			open = false // and look at what the last read added
		case <-timeout:
			t.Fatalf("the terminal's output did not end within %s; it showed %q", outputWait, got)
		}
	}
}
