package bench

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// Machine describes where a run happened.
type Machine struct {
	// GoVersion, OS and Arch are the Go toolchain and platform.
	GoVersion string `json:"goVersion"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	// CPU is the model name from /proc/cpuinfo; CPUs the logical CPUs.
	CPU  string `json:"cpu"`
	CPUs int    `json:"cpus"`
	// MemTotalBytes is the machine's memory (Linux).
	MemTotalBytes int64 `json:"memTotalBytes,omitempty"`
	// LoadAvg is /proc/loadavg's 1, 5 and 15 minute averages at the start:
	// other work on the machine shows in latency, not in CPU time.
	LoadAvg string `json:"loadAvgAtStart,omitempty"`
	// RuntimeEnv lists the Go runtime variables (GOGC, GOMEMLIMIT,
	// GOMAXPROCS) the bench process ran with, when set.
	RuntimeEnv []string `json:"runtimeEnv,omitempty"`
}

// DescribeMachine reports the Go version, OS, CPU model and memory.
func DescribeMachine() Machine {
	m := Machine{GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					m.MemTotalBytes = kb * 1024
				}
			}
		}
	}
	for _, k := range []string{"GOGC", "GOMEMLIMIT", "GOMAXPROCS"} {
		if v, ok := os.LookupEnv(k); ok {
			m.RuntimeEnv = append(m.RuntimeEnv, k+"="+v)
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			m.LoadAvg = strings.Join(f[:3], " ")
		}
	}
	return m
}

// releaseMemory returns freed memory to the OS so RSS readings mean what
// is live.
func releaseMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}
