package novatest

import (
	"fmt"
	"os"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// PTY opens a pseudo-terminal pair of 40 rows and 120 columns: the test
// reads what a program writes to its terminal from master (which takes
// read deadlines) and types into it, and the program gets the slave end
// as its terminal. Both close when the test ends.
func PTY(t testing.TB) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	raw, err := m.SyscallConn() // not m.Fd(), which would end read deadlines
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = raw.Control(func(fd uintptr) {
		if err = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); err != nil {
			return
		}
		if err = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120}); err != nil {
			return
		}
		n, err = unix.IoctlGetInt(int(fd), unix.TIOCGPTN)
	})
	if err != nil {
		t.Fatalf("set up the pseudo-terminal: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}
