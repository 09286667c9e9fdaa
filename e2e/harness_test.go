// Package e2e tests the real binaries: it builds novad and novactl, starts
// novad on free loopback ports over a temporary NOVA_HOME, and checks
// behaviour through HTTP, files and exit codes only.
package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
)

var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "nova-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := func() int {
		defer os.RemoveAll(dir)
		_, here, _, _ := runtime.Caller(0)
		root := filepath.Dir(filepath.Dir(here))
		args := []string{"build"}
		if raceEnabled {
			args = append(args, "-race")
		}
		for _, name := range []string{"novad", "novactl"} {
			cmd := exec.Command("go", append(args, "-o", filepath.Join(dir, name), "./cmd/"+name)...)
			cmd.Dir = root
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			if err := cmd.Run(); err != nil {
				fmt.Fprintln(os.Stderr, "build", name, err)
				return 1
			}
		}
		return m.Run()
	}()
	os.Exit(code)
}

// home is a temporary NOVA_HOME.
type home struct {
	t    *testing.T
	dir  string
	data string
}

const sampleJSONL = `{"id":"dec-1","text":"We chose SQLite in WAL mode for the local task store because it survives crashes.","date":"2026-10-14","agent":"codex","project":"nova","tags":["decision"]}
{"id":"inc-7","text":"The dashboard on port 2096 was unavailable after the VPS migration: the firewall dropped inbound traffic; an allow rule fixed it.","date":"2026-11-10","agent":"claude-code","project":"infra"}
{"id":"rel-3","text":"Release v1.4.0 was rolled back because migration script RC-204 failed on empty tables; v1.4.1 fixed it.","date":"2026-11-05","agent":"codex","project":"nova"}
{"id":"zh-1","text":"迁移后定时任务失败，原因是时区配置不同，已经修复。","date":"2026-11-20","agent":"codex","project":"infra"}
`

const sampleNote = `---
title: Invoice rounding
date: 2026-11-02
project: billing
---
# Invoice rounding

## Decision
Round once at the invoice level with banker's rounding in src/money.py (commit 3f2a9c1).
`

// newHome writes a home with config.yaml (ports 0: free ports) and a
// small memory. extra is appended to config.yaml.
func newHome(t *testing.T, extra string) *home {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "memory")
	must(t, os.MkdirAll(data, 0o755))
	must(t, os.WriteFile(filepath.Join(data, "records.jsonl"), []byte(sampleJSONL), 0o644))
	must(t, os.WriteFile(filepath.Join(data, "rounding.md"), []byte(sampleNote), 0o644))
	cfg := fmt.Sprintf(`server: {host: 127.0.0.1, port: 0}
facade: {port: 0}
sources:
  - {name: records, kind: jsonl, path: %q}
  - {name: notes, kind: markdown, path: %q}
%s`, data, data, extra)
	must(t, os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o644))
	return &home{t: t, dir: dir, data: data}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (h *home) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NOVA_") {
			env = append(env, kv)
		}
	}
	return append(env, "NOVA_HOME="+h.dir)
}

// novactl runs novactl and returns stdout, stderr and the exit code.
func (h *home) novactl(args ...string) (string, string, int) {
	h.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "novactl"), args...)
	cmd.Env = h.env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatalf("novactl %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

func (h *home) sync() {
	h.t.Helper()
	out, errs, code := h.novactl("index", "sync")
	if code != 0 {
		h.t.Fatalf("index sync failed (%d): %s %s", code, out, errs)
	}
}

// daemon is a running novad.
type daemon struct {
	t      *testing.T
	h      *home
	cmd    *exec.Cmd
	logs   *syncBuffer
	direct string
	facade string
	done   chan struct{}
	exit   int
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start runs novad and waits until both listeners answer.
func (h *home) start(args ...string) *daemon {
	h.t.Helper()
	// A previous daemon's state must not be mistaken for this one's.
	os.Remove(filepath.Join(h.dir, "state", "server-state.json"))
	d := h.launch(args...)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-d.done:
			h.t.Fatalf("novad exited with %d:\n%s", d.exit, d.logs.String())
		default:
		}
		var st api.ServerState
		if b, err := os.ReadFile(filepath.Join(h.dir, "state", "server-state.json")); err == nil && json.Unmarshal(b, &st) == nil && st.PID == d.cmd.Process.Pid {
			d.direct = "http://127.0.0.1:" + strconv.Itoa(st.DirectPort)
			d.facade = "http://127.0.0.1:" + strconv.Itoa(st.FacadePort)
			if resp, err := http.Get(d.direct + "/health"); err == nil {
				var hl api.Health
				json.NewDecoder(resp.Body).Decode(&hl)
				resp.Body.Close()
				if hl.Status == "ok" {
					return d
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.t.Fatalf("novad did not become ready:\n%s", d.logs.String())
	return nil
}

// launch starts novad without waiting.
func (h *home) launch(args ...string) *daemon {
	h.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "novad"), append([]string{"-v"}, args...)...)
	cmd.Env = h.env()
	logs := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	must(h.t, cmd.Start())
	d := &daemon{t: h.t, h: h, cmd: cmd, logs: logs, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			d.exit = ee.ExitCode()
		}
		close(d.done)
	}()
	h.t.Cleanup(func() {
		select {
		case <-d.done:
		default:
			cmd.Process.Kill()
			<-d.done
		}
	})
	return d
}

// stop sends SIGTERM and returns the exit code and how long it took.
func (d *daemon) stop() (int, time.Duration) {
	d.t.Helper()
	t0 := time.Now()
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(15 * time.Second):
		d.t.Fatalf("novad did not stop within 15s:\n%s", d.logs.String())
	}
	return d.exit, time.Since(t0)
}

// waitExit waits for novad to exit by itself.
func (d *daemon) waitExit(timeout time.Duration) int {
	d.t.Helper()
	select {
	case <-d.done:
		return d.exit
	case <-time.After(timeout):
		d.t.Fatalf("novad did not exit:\n%s", d.logs.String())
	}
	return -1
}

// reply is one HTTP exchange.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("not JSON (%d): %s", r.status, r.body)
	}
	return m
}

// do sends a request with exact headers (Host included when set).
func do(t *testing.T, method, url string, body string, headers map[string]string) reply {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	must(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	must(t, err)
	// No response may ever carry a CORS grant.
	for k := range resp.Header {
		if strings.HasPrefix(strings.ToLower(k), "access-control-") {
			t.Errorf("%s %s: response has CORS header %s", method, url, k)
		}
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

func search(t *testing.T, base, body string) reply {
	t.Helper()
	return do(t, http.MethodPost, base+api.PathFacadeSearch, body, nil)
}

// snapshot hashes every file under dir (relative path -> sha256).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(b)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	must(t, err)
	return out
}

// freePort returns a port nothing listens on right now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}
