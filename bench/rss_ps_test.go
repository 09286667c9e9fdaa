//go:build unix

package bench

import (
	"os/exec"
	"runtime"
	"testing"
)

// TestPSMemory reads a running child's resident set as macOS does
// (ps(1)); on Linux it is checked against /proc.
func TestPSMemory(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var rss int64
	var err error
	for range 50 { // ps may see the fork before the exec
		if rss, err = psRSS(cmd.Process.Pid); err == nil && rss > 0 {
			break
		}
	}
	if err != nil || rss <= 0 {
		t.Fatalf("psRSS of a running sleep = %d, %v", rss, err)
	}
	if runtime.GOOS == "linux" {
		m, err := childMemory(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		if rss < m.RSS/2 || rss > m.RSS*2 {
			t.Errorf("ps says %d bytes resident, /proc %d", rss, m.RSS)
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if _, err := psRSS(cmd.Process.Pid); err == nil {
		t.Errorf("psRSS of an exited process: no error")
	}
}
