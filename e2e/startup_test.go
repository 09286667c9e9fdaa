package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/internal/novatest"
)

// getHealth reads the direct server's /health without failing a test (for
// goroutines).
func getHealth(base string) (api.Health, error) {
	var h api.Health
	resp, err := http.Get(base + api.PathHealth)
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	return h, json.NewDecoder(resp.Body).Decode(&h)
}

// TestFirstSyncInEmptyHomeIsServedAtOnce: in a home with no index/ yet,
// the first sync after novad started is served within seconds (the
// watcher's 30 s poll is not what finds it), and so is a sync after the
// whole index/ was removed under a running novad.
func TestFirstSyncInEmptyHomeIsServedAtOnce(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	d := h.Start()
	if _, available, _ := served(t, d); available {
		t.Fatal("search is available before any sync")
	}
	// Bounds well under the 30 s poll; the measured times are logged.
	const bound = 10 * time.Second
	servedAfterSync := func(what string) {
		t.Helper()
		before := directHealth(t, d).Generation
		// Watch from before the sync, so the moment it is served is known
		// to within a poll and can be set against the manifest's write.
		// It watches until told to stop, bound after the sync returned:
		// however long the sync takes on a loaded machine.
		var servedAt time.Time
		done := make(chan struct{})
		watching, stop := context.WithCancel(t.Context())
		defer stop()
		go func() {
			defer close(done)
			for {
				if hl, err := getHealth(d.Direct); err == nil && hl.IndexLoaded && hl.Generation != before && hl.Integrity.Status == api.IntegrityVerified {
					servedAt = time.Now()
					return
				}
				select {
				case <-watching.Done():
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
		}()
		h.Sync()
		synced := time.Now()
		select {
		case <-done:
		case <-time.After(bound):
			stop()
			<-done
		}
		fi, err := os.Stat(filepath.Join(h.Dir, "index", "manifest.json"))
		novatest.Must(t, err)
		if servedAt.IsZero() || servedAt.Sub(synced) > bound {
			t.Fatalf("%s was not served within %s", what, bound)
		}
		t.Logf("%s served %d ms after the manifest was written (the sync returned %d ms after writing it)",
			what, servedAt.Sub(fi.ModTime()).Milliseconds(), synced.Sub(fi.ModTime()).Milliseconds())
		if _, available, _ := served(t, d); !available {
			t.Fatalf("%s: search is not available", what)
		}
	}
	servedAfterSync("the first sync")

	// A reset while novad runs: the served generation is gone, and the
	// watcher must follow index/ away and back.
	novatest.Must(t, os.RemoveAll(filepath.Join(h.Dir, "index")))
	waitFor(t, 30*time.Second, "novad to notice the removed generation", func() bool {
		hl, err := getHealth(d.Direct)
		return err == nil && hl.Integrity.Status == api.IntegrityDamaged
	})
	servedAfterSync("a sync into a removed index/")
}

// pinPorts rewrites h's config to fixed ports and returns them.
func pinPorts(t *testing.T, h *novatest.Home) (direct, facade int) {
	t.Helper()
	direct = novatest.ClosedPort(t)
	facade = novatest.ClosedPort(t, direct)
	cfg := filepath.Join(h.Dir, "config.yaml")
	b, err := os.ReadFile(cfg)
	novatest.Must(t, err)
	s := strings.Replace(string(b), "server: {host: 127.0.0.1, port: 0}", fmt.Sprintf("server: {host: 127.0.0.1, port: %d}", direct), 1)
	s = strings.Replace(s, "facade: {port: 0}", fmt.Sprintf("facade: {port: %d}", facade), 1)
	novatest.Must(t, os.WriteFile(cfg, []byte(s), 0o600))
	return direct, facade
}

// TestBindRetry: a port still held when novad starts (by a novad killed a
// moment ago) is retried for a few seconds instead of exiting 75.
func TestBindRetry(t *testing.T) {
	t.Run("port released while novad retries", func(t *testing.T) {
		h := novatest.NewHome(t, "")
		direct, _ := pinPorts(t, h)
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", direct))
		novatest.Must(t, err)
		defer ln.Close()
		// The port is let go once novad says it retries, not after a
		// fixed time: a novad slow to start (a loaded machine, the race
		// detector) would otherwise find it free at its first try.
		t0 := time.Now()
		d := h.Launch()
		waitFor(t, 30*time.Second, "novad to retry the taken port", func() bool {
			return strings.Contains(d.Logs.String(), "Port in use; retrying the bind")
		})
		novatest.Must(t, ln.Close())
		held := time.Since(t0)
		if _, err := novatest.WaitServing(h.Dir, d.Cmd.Process.Pid, d.Done, 30*time.Second); err != nil {
			t.Fatalf("%v (exit %d):\n%s", err, d.Exit, d.Logs.String())
		}
		t.Logf("serving %d ms after start, the port was held for %d ms", time.Since(t0).Milliseconds(), held.Milliseconds())
	})
	t.Run("restarted right after SIGKILL", func(t *testing.T) {
		h := novatest.NewHome(t, "")
		h.Sync()
		pinPorts(t, h)
		d := h.Start()
		for i := range 6 {
			novatest.Must(t, d.Cmd.Process.Signal(syscall.SIGKILL))
			t0 := time.Now()
			next := h.Launch() // at once, as launchd or systemd would
			<-d.Done
			st, err := novatest.WaitServing(h.Dir, next.Cmd.Process.Pid, next.Done, 30*time.Second)
			if err != nil {
				t.Fatalf("restart %d: %v (exit %d):\n%s", i+1, err, next.Exit, next.Logs.String())
			}
			retries := strings.Count(next.Logs.String(), "Port in use; retrying the bind")
			t.Logf("restart %d: serving on %d after %d ms, %d bind retries", i+1, st.DirectPort, time.Since(t0).Milliseconds(), retries)
			d = next
		}
	})
}

// TestHomeIsPrivate: a home made with a plain mkdir (0755) is narrowed by
// novad at start and by index sync, whatever the umask; every file under
// index/ is then 0600 and every directory 0700, and doctor reports a home
// open to others until then.
func TestHomeIsPrivate(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	novatest.Must(t, os.Chmod(h.Dir, 0o755))
	novatest.Must(t, os.Mkdir(filepath.Join(h.Dir, "index"), 0o755))
	out, _, code := h.Novactl("doctor")
	if code != 1 || !strings.Contains(out, "Blocked: home-not-private") || !strings.Contains(out, "chmod -R go= "+h.Dir) {
		t.Errorf("doctor must report a home open to others with the fix (exit 1), exit %d:\n%s", code, out)
	}

	// Sync with a umask that would leave everything open.
	cmd := exec.Command("sh", "-c", `umask 000; exec "$0" "$@"`, novatest.Binary(t, "novactl"), "index", "sync")
	cmd.Env = h.Env()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("index sync: %v\n%s", err, b)
	}
	assertPrivate(t, h.Dir)
	out, _, _ = h.Novactl("doctor")
	if !strings.Contains(out, "Private home") || strings.Contains(out, "home-not-private") {
		t.Errorf("doctor after the sync:\n%s", out)
	}

	// novad narrows a home opened again, and what it writes is private.
	novatest.Must(t, os.Chmod(h.Dir, 0o755))
	novatest.Must(t, os.Chmod(filepath.Join(h.Dir, "index"), 0o755))
	h.Start()
	assertPrivate(t, h.Dir)
}

// assertPrivate fails t for the home or anything under index/, state/ or
// cache/ that grants group or others any access.
func assertPrivate(t *testing.T, home string) {
	t.Helper()
	if fi, err := os.Stat(home); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("home %s: mode %v (%v), want 0700", home, fi.Mode().Perm(), err)
	}
	files := 0
	for _, sub := range []string{"index", "state", "cache"} {
		err := filepath.WalkDir(filepath.Join(home, sub), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			// Private: no access for group or others. Generation files
			// are also read-only once written (0400).
			want := []fs.FileMode{0o600, 0o400}
			if d.IsDir() {
				want = []fs.FileMode{0o700}
			} else {
				files++
			}
			if !slices.Contains(want, fi.Mode().Perm()) {
				t.Errorf("%s: mode %v, want one of %v", p, fi.Mode().Perm(), want)
			}
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			t.Error(err)
		}
	}
	if files == 0 {
		t.Error("no file under index/, state/ or cache/ was checked")
	}
}

// TestServesOnAnotherLoopbackAddress: config accepts any address of
// 127.0.0.0/8, so novad bound to 127.0.0.2 must answer requests made to
// it (Host 127.0.0.2:port), and novactl must find it Ready, while a Host
// naming 127.0.0.1 or [::1] is still refused there.
func TestServesOnAnotherLoopbackAddress(t *testing.T) {
	t.Parallel()
	if ln, err := net.Listen("tcp", "127.0.0.2:0"); err != nil {
		t.Skipf("this machine routes only 127.0.0.1 (macOS without an alias): %v", err)
	} else {
		ln.Close()
	}
	h := novatest.NewHome(t, "")
	cfgPath := filepath.Join(h.Dir, "config.yaml")
	b, err := os.ReadFile(cfgPath)
	novatest.Must(t, err)
	novatest.Must(t, os.WriteFile(cfgPath, []byte(strings.Replace(string(b), "host: 127.0.0.1", "host: 127.0.0.2", 1)), 0o600))
	h.Sync()
	d := h.Start()
	if !strings.HasPrefix(d.Direct, "http://127.0.0.2:") {
		t.Fatalf("novad serves at %s", d.Direct)
	}
	if r := do(t, http.MethodGet, d.Direct+api.PathHealth, "", nil); r.status != http.StatusOK {
		t.Fatalf("health on 127.0.0.2: %d %s", r.status, r.body)
	}
	if r := search(t, d.Facade, `{"query":"dashboard port","topK":3}`); r.status != http.StatusOK || r.json(t)["available"] != true {
		t.Fatalf("facade search on 127.0.0.2: %d %s", r.status, r.body)
	}
	port := strings.TrimPrefix(d.Direct, "http://127.0.0.2:")
	for _, host := range []string{"127.0.0.1:" + port, "[::1]:" + port} {
		if r := do(t, http.MethodGet, d.Direct+api.PathHealth, "", map[string]string{"Host": host}); r.status != http.StatusForbidden {
			t.Errorf("Host %s on a listener at 127.0.0.2: %d, want 403", host, r.status)
		}
	}
	out, errs, code := h.Novactl("search", "dashboard port")
	if code != 0 || !strings.Contains(out, "2096") {
		t.Errorf("novactl search (exit %d):\n%s%s", code, out, errs)
	}
	out, errs, code = h.Novactl("status")
	if code != 0 || strings.Contains(out, "novad-not-running") {
		t.Errorf("novactl status (exit %d):\n%s%s", code, out, errs)
	}
}

// TestServesWhenTheTokenCannotBeWritten: a novad that cannot write its
// internal token (a full or read-only disk; here a directory in its
// place) still serves search from what is on disk, says /encode is not
// authorized, and logs why. It used to refuse to start, so a full disk
// took search down.
func TestServesWhenTheTokenCannotBeWritten(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	h.Sync()
	tokenFile := filepath.Join(h.Dir, "state", "internal-token")
	novatest.Must(t, os.RemoveAll(tokenFile))
	novatest.Must(t, os.MkdirAll(filepath.Join(tokenFile, "blocker"), 0o700))
	d := h.Start()
	if !strings.Contains(d.Logs.String(), "Cannot publish the internal token") {
		t.Errorf("novad does not say why /encode is refused:\n%s", d.Logs.String())
	}
	health := do(t, http.MethodGet, d.Direct+"/health", "", nil).json(t)
	if health["internalEncodeAuthorized"] != false || health["indexReady"] != true {
		t.Errorf("health: internalEncodeAuthorized %v indexReady %v, want false and true", health["internalEncodeAuthorized"], health["indexReady"])
	}
	if r := search(t, d.Facade, `{"query":"why was the dashboard port unavailable"}`).json(t); r["available"] != true {
		t.Errorf("search without a published token: %v", r["reason"])
	}
}
