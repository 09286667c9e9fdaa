package novatest

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestTerminal_Output: what a program writes to the terminal, redraws and
// more than the kernel buffers, is all there before the end mark, and the
// callback sees it as it comes and can answer the terminal.
func TestTerminal_Output(t *testing.T) {
	var answered sync.Once
	term := NewTerminal(t, func(term *Terminal, seen string) {
		if strings.Contains(seen, "name? ") {
			answered.Do(func() { _ = term.Type("nova\n") })
		}
	})
	big := strings.Repeat("x", 200_000) // a pseudo-terminal buffers far less
	for _, s := range []string{"\rprogress 1/3", "\rprogress 2/3", "\rprogress 3/3", big, "name? "} {
		if _, err := term.Slave().WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	line, err := bufio.NewReader(term.Slave()).ReadString('\n')
	if err != nil || line != "nova\n" {
		t.Fatalf("the program read %q, %v; want the callback's answer", line, err)
	}
	// The answer is echoed, as a terminal does.
	want := "\rprogress 1/3\rprogress 2/3\rprogress 3/3" + big + "name? nova\r\n"
	if got := term.Output(t); got != want {
		t.Errorf("Output is %d bytes, want %d: %.80q…", len(got), len(want), got)
	}
	if seen := term.Seen(); !strings.HasPrefix(seen, want) {
		t.Errorf("Seen lacks the output: %.80q…", seen)
	}
}

// fatalTB records the message a failing Output gives.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// fails runs Output on term and returns the message it fails with.
func fails(t *testing.T, term *Terminal) string {
	t.Helper()
	tb := &fatalTB{TB: t}
	done := make(chan string)
	go func() {
		defer func() { done <- tb.msg }()
		got := term.Output(tb)
		tb.msg = "no failure; Output returned " + fmt.Sprintf("%q", got)
	}()
	return <-done
}

// TestTerminal_OutputFails: an Output that cannot have all the output
// fails the test saying why, with what arrived, instead of returning
// part of it.
func TestTerminal_OutputFails(t *testing.T) {
	// pipes stands in for a pseudo-terminal whose slave is not read by
	// its master: the mark written to it never arrives.
	pipes := func(t *testing.T) (term *Terminal, toMaster *os.File) {
		r, w, err := os.Pipe()
		Must(t, err)
		_, slave, err := os.Pipe()
		Must(t, err)
		term = &Terminal{master: r, slave: slave, arrived: make(chan struct{}, 1), ended: make(chan struct{})}
		go term.read()
		t.Cleanup(func() { w.Close(); r.Close(); slave.Close(); <-term.ended })
		return term, w
	}
	t.Run("reads stop", func(t *testing.T) {
		term, w := pipes(t)
		_, _ = w.WriteString("progress 1/3")
		w.Close()
		msg := fails(t, term)
		if !strings.Contains(msg, "reading the terminal stopped (EOF)") || !strings.Contains(msg, `"progress 1/3"`) {
			t.Errorf("the failure says %q; want why the reads stopped and what arrived", msg)
		}
	})
	t.Run("no end", func(t *testing.T) {
		outputWait = 50 * time.Millisecond
		t.Cleanup(func() { outputWait = time.Minute })
		term, w := pipes(t)
		_, _ = w.WriteString("progress 1/3")
		for term.Seen() == "" { // the bound is short: read before it starts
			time.Sleep(time.Millisecond)
		}
		msg := fails(t, term)
		if !strings.Contains(msg, "did not end within 50ms") || !strings.Contains(msg, `"progress 1/3"`) {
			t.Errorf("the failure says %q; want the bound and what arrived", msg)
		}
	})
	t.Run("closed", func(t *testing.T) {
		term := NewTerminal(t, nil)
		term.master.Close()
		if msg := fails(t, term); !strings.Contains(msg, "mark the end of the terminal's output") {
			t.Errorf("the failure says %q; want that the end could not be marked", msg)
		}
	})
}
