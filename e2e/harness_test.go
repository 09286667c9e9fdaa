// Package e2e tests the real binaries: it builds novad and novactl, starts
// novad on free loopback ports over a temporary NOVA_HOME, and checks
// behaviour through HTTP, files and exit codes only.
package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/internal/novatest"
)

func TestMain(m *testing.M) {
	// The tests wait on novad, novactl and run.sh most of their time (a
	// third of a core busy two at a time): unless -parallel says
	// otherwise, four run at once.
	flag.Parse()
	parallel := false
	flag.Visit(func(f *flag.Flag) { parallel = parallel || f.Name == "test.parallel" })
	if !parallel {
		_ = flag.Set("test.parallel", "4") // a flag the testing package defines
	}
	if err := novatest.BuildAll(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	novatest.Cleanup()
	os.Exit(code)
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
	novatest.Must(t, err)
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
	novatest.Must(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	novatest.Must(t, err)
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

// eachWrittenFile calls each with the path and contents of every file
// Nova wrote under h's NOVA_HOME (its state, index and logs), the memory
// folder it reads aside: the files a secret must never reach.
func eachWrittenFile(t *testing.T, h *novatest.Home, each func(path string, b []byte)) {
	t.Helper()
	err := filepath.WalkDir(h.Dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() || strings.HasPrefix(p, h.Data) {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		each(p, b)
		return nil
	})
	novatest.Must(t, err)
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
		if filepath.Base(filepath.Dir(p)) == "state" && d.Name() != "internal-token" {
			// novad's own status (pid, ports, the generation it serves)
			// changes as it runs; it is not memory a request could write.
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
	novatest.Must(t, err)
	return out
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
