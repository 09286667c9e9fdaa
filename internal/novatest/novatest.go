// Package novatest runs the real novad and novactl binaries for tests: it
// builds them once per test binary, writes a temporary NOVA_HOME holding a
// small memory, and starts novad on free loopback ports, waiting until it
// serves. The e2e, MCP and testscript suites share it so that "novad is
// ready" means one thing everywhere.
package novatest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/internal/racebuild"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/paths"
)

// binaries are the programs a test may ask for, each built at most once
// per test binary and only when asked for: a package that runs novactl
// alone (mcpserver) does not pay for a race-built novad and novactl-tui.
var binaries = []string{"novad", "novactl", "novactl-tui"}

var (
	dirOnce sync.Once
	binDir  string
	ownDir  bool // binDir was made here, not given by make test
	dirErr  error

	buildMu sync.Mutex
	built   = map[string]error{}
)

// PrebuiltEnv names a folder where make test has built novad, novactl
// and novactl-tui, the same way as the tests (with -race under the race
// detector), before it runs them: each package that runs the programs
// then uses those instead of linking its own copies (five packages did,
// about 10 s each under -race).
const PrebuiltEnv = "NOVA_TEST_PREBUILT"

// prebuilt checks that make test's folder holds names.
func prebuilt(names []string) error {
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(binDir, name)); err != nil {
			return fmt.Errorf("%s=%s: %w (make test builds them there)", PrebuiltEnv, binDir, err)
		}
	}
	return nil
}

// build builds those of names not built yet into binDir with one go build,
// which compiles and links them in parallel (with -race when the tests run
// with it).
func build(names ...string) error {
	dirOnce.Do(func() {
		if binDir = os.Getenv(PrebuiltEnv); binDir != "" {
			ownDir = false
			return
		}
		binDir, dirErr = os.MkdirTemp("", "nova-test-bin-")
		ownDir = true
	})
	if dirErr != nil {
		return dirErr
	}
	if !ownDir {
		return prebuilt(names)
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	var pkgs []string
	for _, name := range names {
		if err, done := built[name]; done {
			if err != nil {
				return err
			}
			continue
		}
		pkgs = append(pkgs, "./cmd/"+name)
	}
	if len(pkgs) == 0 {
		return nil
	}
	_, here, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(filepath.Dir(here)))
	args := []string{"build"}
	if racebuild.Enabled {
		args = append(args, "-race")
	}
	// -o names a file for one package and a folder (trailing separator)
	// for several.
	out := filepath.Join(binDir, filepath.Base(pkgs[0]))
	if len(pkgs) > 1 {
		out = binDir + string(filepath.Separator)
	}
	cmd := exec.Command("go", append(append(args, "-o", out), pkgs...)...)
	cmd.Dir = root
	var err error
	if b, cerr := cmd.CombinedOutput(); cerr != nil {
		err = fmt.Errorf("build %s: %v\n%s", strings.Join(pkgs, " "), cerr, b)
	}
	for _, p := range pkgs {
		built[filepath.Base(p)] = err
	}
	return err
}

// BuildAll builds novad, novactl and novactl-tui together, for a package
// whose tests run all three: one go build links them in parallel, where
// three first uses would build them one after another.
func BuildAll() error { return build(binaries...) }

// BinDir returns the folder holding the built novad, novactl and
// novactl-tui, building them on first use (with -race when the tests run
// with it).
func BinDir(t testing.TB) string {
	t.Helper()
	if err := build(binaries...); err != nil {
		t.Fatal(err)
	}
	return binDir
}

// Binary returns the path of the built novad, novactl or novactl-tui,
// building that one on first use.
func Binary(t testing.TB, name string) string {
	t.Helper()
	if !slices.Contains(binaries, name) {
		t.Fatalf("novatest: no binary %q", name)
	}
	if err := build(name); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(binDir, name)
}

// Cleanup removes the binaries the tests built (not make test's); call it
// from TestMain after m.Run.
func Cleanup() {
	if ownDir {
		os.RemoveAll(binDir)
	}
}

// SampleJSONL and SampleNote are the memory every Home starts with.
const (
	SampleJSONL = `{"id":"dec-1","text":"We chose SQLite in WAL mode for the local task store because it survives crashes.","date":"2026-10-14","agent":"codex","project":"nova","tags":["decision"]}
{"id":"inc-7","text":"The dashboard on port 2096 was unavailable after the VPS migration: the firewall dropped inbound traffic; an allow rule fixed it.","date":"2026-11-10","agent":"claude-code","project":"infra"}
{"id":"rel-3","text":"Release v1.4.0 was rolled back because migration script RC-204 failed on empty tables; v1.4.1 fixed it.","date":"2026-11-05","agent":"codex","project":"nova"}
{"id":"zh-1","text":"迁移后定时任务失败，原因是时区配置不同，已经修复。","date":"2026-11-20","agent":"codex","project":"infra"}
`
	SampleNote = `---
title: Invoice rounding
date: 2026-11-02
project: billing
---
# Invoice rounding

## Decision
Round once at the invoice level with banker's rounding in src/money.py (commit 3f2a9c1).
`
)

// Home is a temporary NOVA_HOME.
type Home struct {
	T testing.TB
	// Dir is the NOVA_HOME.
	Dir string
	// Data is the memory folder both sources read.
	Data string
	// User is the HOME the programs run with: an empty folder, so that
	// nothing reads the developer's own agents (~/.claude, ~/.codex, ...).
	User string
}

// NewHome writes a home whose config.yaml binds free ports (port 0) and
// reads the sample memory; extraConfig is appended to config.yaml.
func NewHome(t testing.TB, extraConfig string) *Home {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "memory")
	Must(t, os.MkdirAll(data, 0o755))
	Must(t, os.WriteFile(filepath.Join(data, "records.jsonl"), []byte(SampleJSONL), 0o644))
	Must(t, os.WriteFile(filepath.Join(data, "rounding.md"), []byte(SampleNote), 0o644))
	cfg := fmt.Sprintf(`server: {host: 127.0.0.1, port: 0}
facade: {port: 0}
sources:
  - {name: records, kind: jsonl, path: %q}
  - {name: notes, kind: markdown, path: %q}
%s`, data, data, extraConfig)
	Must(t, os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o644))
	return &Home{T: t, Dir: dir, Data: data, User: t.TempDir()}
}

// Must fails t on a non-nil err.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// agentLocations are the variables that move an agent's folder away
// from HOME; a test must not follow them to the developer's own.
var agentLocations = []string{"CODEX_HOME=", "CLAUDE_CONFIG_DIR=", "HERMES_HOME=", "OPENCLAW_HOME=", "OPENCLAW_STATE_DIR="}

// Env is the test process's environment without NOVA_* variables or
// the agents' location variables, with NOVA_HOME and HOME set to the
// test's folders: a developer's own settings and agents must not leak
// into a test (doctor and mcp status read every agent's files in HOME).
func (h *Home) Env() []string {
	if h.User == "" {
		h.User = h.T.TempDir()
	}
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "NOVA_") || strings.HasPrefix(kv, "HOME=") || slices.ContainsFunc(agentLocations, func(p string) bool { return strings.HasPrefix(kv, p) }) {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "NOVA_HOME="+h.Dir, "HOME="+h.User)
}

// Novactl runs novactl and returns stdout, stderr and the exit code.
func (h *Home) Novactl(args ...string) (stdout, stderr string, code int) {
	h.T.Helper()
	cmd := exec.Command(Binary(h.T, "novactl"), args...)
	cmd.Env = h.Env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		h.T.Fatalf("novactl %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// Sync runs novactl index sync and fails the test if it fails.
func (h *Home) Sync() {
	h.T.Helper()
	if out, errs, code := h.Novactl("index", "sync"); code != 0 {
		h.T.Fatalf("index sync failed (%d): %s %s", code, out, errs)
	}
}

// Daemon is a running novad.
type Daemon struct {
	T   testing.TB
	Cmd *exec.Cmd
	// Logs is everything novad wrote to stdout and stderr.
	Logs *LogBuffer
	// Direct and Facade are the listeners' base URLs, set by Start.
	Direct, Facade string
	// Done is closed when novad has exited; Exit is then its exit code.
	Done chan struct{}
	Exit int
}

// LogBuffer is a bytes.Buffer safe for novad's writes and a test's reads.
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written so far.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Start runs novad (verbose, with args) and waits until it serves.
func (h *Home) Start(args ...string) *Daemon {
	h.T.Helper()
	// A previous daemon's state must not be mistaken for this one's.
	os.Remove(filepath.Join(h.Dir, "state", "server-state.json"))
	d := h.Launch(args...)
	st, err := WaitServing(h.Dir, d.Cmd.Process.Pid, d.Done, 30*time.Second)
	if err != nil {
		h.T.Fatalf("%v (exit %d):\n%s", err, d.Exit, d.Logs.String())
	}
	d.Direct = baseURL(st, st.DirectPort)
	d.Facade = baseURL(st, st.FacadePort)
	return d
}

// Launch starts novad (verbose, with args) without waiting; the test's
// cleanup kills it if it still runs.
func (h *Home) Launch(args ...string) *Daemon {
	h.T.Helper()
	cmd := exec.Command(Binary(h.T, "novad"), append([]string{"-v"}, args...)...)
	cmd.Env = h.Env()
	logs := &LogBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	Must(h.T, cmd.Start())
	d := &Daemon{T: h.T, Cmd: cmd, Logs: logs, Done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			d.Exit = ee.ExitCode()
		}
		close(d.Done)
	}()
	h.T.Cleanup(func() {
		select {
		case <-d.Done:
		default:
			_ = cmd.Process.Kill() // it may exit meanwhile; Done says when
			<-d.Done
		}
	})
	return d
}

// Stop sends SIGTERM and returns the exit code and how long novad took.
func (d *Daemon) Stop() (int, time.Duration) {
	d.T.Helper()
	t0 := time.Now()
	_ = d.Cmd.Process.Signal(syscall.SIGTERM) // an exited novad is what Stop waits for anyway
	select {
	case <-d.Done:
	case <-time.After(15 * time.Second):
		d.T.Fatalf("novad did not stop within 15s:\n%s", d.Logs.String())
	}
	return d.Exit, time.Since(t0)
}

// WaitExit waits for novad to exit by itself and returns its exit code.
func (d *Daemon) WaitExit(timeout time.Duration) int {
	d.T.Helper()
	select {
	case <-d.Done:
		return d.Exit
	case <-time.After(timeout):
		d.T.Fatalf("novad did not exit:\n%s", d.Logs.String())
	}
	return -1
}

// WaitServing waits until the novad with pid has published its ports in
// home's server-state.json and its /health says it is past booting: both
// listeners accept and a promoted index has finished its first load, so a
// search answers from it rather than "index-loading". It fails early when
// done (closed on novad's exit) is closed.
func WaitServing(home string, pid int, done <-chan struct{}, timeout time.Duration) (api.ServerState, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return api.ServerState{}, errors.New("novad exited before serving")
		default:
		}
		var st api.ServerState
		if b, err := os.ReadFile(filepath.Join(home, "state", "server-state.json")); err == nil && json.Unmarshal(b, &st) == nil && st.PID == pid && st.DirectPort > 0 {
			if resp, err := http.Get(baseURL(st, st.DirectPort) + api.PathHealth); err == nil {
				var health api.Health
				err := json.NewDecoder(resp.Body).Decode(&health)
				resp.Body.Close()
				if err == nil && health.Status == "ok" {
					return st, nil
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return api.ServerState{}, fmt.Errorf("novad did not serve within %s", timeout)
}

// baseURL is the URL of novad's listener on port, at the host its
// config binds.
func baseURL(st api.ServerState, port int) string {
	return "http://" + net.JoinHostPort(cmp.Or(st.Host, "127.0.0.1"), strconv.Itoa(port))
}

// ClosedPort returns a loopback port nothing listens on: one the kernel
// just handed out, closed again, and none of other. A test that needs
// novad to be down points its config there, never at the default ports,
// where a user's own novad may be serving. The kernel may hand a port just
// closed out again, so the second of two ports names the first as other
// (config refuses a facade port equal to the server's).
func ClosedPort(t testing.TB, other ...int) int {
	t.Helper()
	var held []net.Listener // a port refused stays held, so it is not handed out again
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Must(t, err)
		held = append(held, l)
		if port := l.Addr().(*net.TCPAddr).Port; !slices.Contains(other, port) {
			return port
		}
	}
}

// DownHome writes a NOVA_HOME whose config points both listeners at closed
// loopback ports: every client in it finds novad not running.
func DownHome(t testing.TB, dir string) {
	t.Helper()
	Must(t, os.MkdirAll(dir, 0o700))
	server := ClosedPort(t)
	cfg := fmt.Sprintf("server: {host: 127.0.0.1, port: %d}\nfacade: {port: %d}\n", server, ClosedPort(t, server))
	Must(t, os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o600))
}

// HoldNovadLock takes home's novad lock for the rest of the test, as the
// novad serving home holds it (clients trust a server on home's ports only
// then). The lock is returned for a test that releases it early.
func HoldNovadLock(t testing.TB, home paths.Home) *lockfile.Lock {
	t.Helper()
	Must(t, paths.MkdirPrivate(home.StateDir()))
	lock, err := lockfile.Acquire(home.DaemonLock(), paths.FileMode, "serve", time.Now())
	Must(t, err)
	t.Cleanup(lock.Release)
	return lock
}

// LongTests is the variable that opts in to the tests that are long by
// nature (a soak): make test-long sets it, make test leaves them out, so
// that the suite stays within its time.
const LongTests = "NOVA_LONG_TESTS"

// Long skips t unless NOVA_LONG_TESTS=1: t is long by nature, and runs
// under make test-long.
func Long(t testing.TB) {
	t.Helper()
	if os.Getenv(LongTests) != "1" {
		t.Skipf("long by nature: runs with %s=1 (make test-long)", LongTests)
	}
}
