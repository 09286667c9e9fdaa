//go:build linux

package bench

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// procMemory reads process pid's memory ("self" for this one) from
// /proc/<pid>/status.
func procMemory(pid string) (procMem, error) {
	var m procMem
	f, err := os.Open("/proc/" + pid + "/status")
	if err != nil {
		return m, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var dst *int64
		switch {
		case strings.HasPrefix(line, "VmRSS:"):
			dst = &m.RSS
		case strings.HasPrefix(line, "VmHWM:"):
			dst = &m.Peak
		case strings.HasPrefix(line, "RssAnon:"):
			dst = &m.Anon
		default:
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return m, fmt.Errorf("parse %q: %w", line, err)
		}
		*dst = kb * 1024
	}
	return m, sc.Err()
}

// selfMemory returns this process' resident set size and peak, in bytes.
func selfMemory() (rss, peak int64) {
	m, _ := procMemory("self")
	return m.RSS, m.Peak
}

// resetPeak resets this process' peak RSS (VmHWM) to its current RSS, so
// the next peak measures one phase. It reports whether that worked.
func resetPeak() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakMethod names how the peak RSS is measured.
const peakMethod = "VmHWM from /proc/self/status, reset through /proc/self/clear_refs before the phase"

// childMemory returns the memory of another process.
func childMemory(pid int) (procMem, error) {
	return procMemory(strconv.Itoa(pid))
}

// childCPU returns the CPU time (user + system) process pid has used,
// from /proc/<pid>/stat (clock ticks, assumed 100 per second as on every
// mainstream Linux).
func childCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	// The command name may hold spaces; fields resume after its ')'.
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}
