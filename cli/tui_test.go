package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/client"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/daemon"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/internal/version"
	"github.com/nova-recall/nova/paths"
)

func TestRunTUI(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"refuses without a terminal", nil, ExitUsage, "needs an interactive terminal on stderr"},
		{"help", []string{"--help"}, ExitOK, "Opens the terminal UI"},
		{"stray argument", []string{"now"}, ExitUsage, `unexpected argument "now"`},
		{"refresh too short", []string{"--refresh", "1ns"}, ExitUsage, "--refresh must be at least 1s (got 1ns)"},
		{"refresh negative", []string{"--refresh", "-1s"}, ExitUsage, "--refresh must be at least 1s (got -1s)"},
		{"refresh zero", []string{"--refresh", "0"}, ExitUsage, "--refresh must be at least 1s (got 0s)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			inv := &Invocation{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Environ: []string{"NOVA_HOME=" + t.TempDir()}}
			if code := Run(t.Context(), append([]string{"tui"}, c.args...), inv); code != c.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, c.code, errb.String())
			}
			// Help asked for is on stdout; a usage error on stderr.
			said, quiet := errb.String(), out.String()
			if c.code == ExitOK {
				said, quiet = out.String(), errb.String()
			}
			if !strings.Contains(said, c.want) {
				t.Fatalf("output lacks %q:\n%s", c.want, said)
			}
			if quiet != "" {
				t.Fatalf("the other stream is not clean: %q", quiet)
			}
		})
	}
}

// TestRunTUI_otherBuild: novactl-tui run by a novactl of another build
// (one of the two updated, not the other) says so, naming both builds and
// the fix, and draws nothing; run by its own build's novactl, or directly,
// it goes on.
func TestRunTUI_otherBuild(t *testing.T) {
	program := func(context.Context, TUISession) error { t.Error("the TUI started"); return nil }
	run := func(environ ...string) (int, string) {
		var errb bytes.Buffer
		inv := &Invocation{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &errb, Environ: append([]string{"NOVA_HOME=" + t.TempDir()}, environ...)}
		return RunTUI(t.Context(), []string{"--refresh", "2s"}, inv, program), errb.String()
	}
	code, stderr := run(envParentBuild + "=v0.9.0 (commit 0123456789ab)")
	for _, want := range []string{"novactl v0.9.0 (commit 0123456789ab)", TUIBinary + " " + version.Get().Build(), "make build", "reinstall Nova"} {
		if code != ExitFailure || !strings.Contains(stderr, want) {
			t.Errorf("another build: exit %d, stderr lacks %q:\n%s", code, want, stderr)
		}
	}
	// Its own build's novactl, or none, gets as far as the terminal check.
	for _, env := range [][]string{{envParentBuild + "=" + version.Get().Build()}, nil} {
		if code, stderr := run(env...); code != ExitUsage || !strings.Contains(stderr, "needs an interactive terminal") {
			t.Errorf("%v: exit %d:\n%s", env, code, stderr)
		}
	}
}

func TestTUIBackend_Search(t *testing.T) {
	t.Run("envelope", func(t *testing.T) {
		var got api.SearchBody
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_ = json.NewDecoder(r.Body).Decode(&got)
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(api.Unavailable(got.Query, got.TopK, api.ReasonIndexNotLoaded))
		}))
		defer srv.Close()
		b := TUIBackend{connect: to(client.New(srv.URL, ""))}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		resp, err := b.Search(ctx, api.SearchBody{Query: "dashboard port", TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Available || resp.Reason == nil || *resp.Reason != api.ReasonIndexNotLoaded {
			t.Fatalf("envelope = available %v reason %v", resp.Available, resp.Reason)
		}
		if got.Query != "dashboard port" || got.RemainingBudgetMs <= 0 || got.RemainingBudgetMs > 10_000 {
			t.Fatalf("request = %+v, want the query and the remaining budget of the context", got)
		}
	})
	t.Run("novad down", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		b := TUIBackend{connect: to(client.New("http://"+addr, ""))}
		_, err = b.Search(t.Context(), api.SearchBody{Query: "x"})
		if !errors.Is(err, api.ErrNotRunning) || !client.IsNotRunning(err) {
			t.Fatalf("err = %v, want one that matches api.ErrNotRunning and is the client's error", err)
		}
	})
	t.Run("another home's novad on this home's ports", func(t *testing.T) {
		// No novad holds this home's lock, and something answers on its
		// facade port: the client sends it nothing, and the TUI must not
		// say that novad is not running and can be started (it could not
		// bind that port); it shows the client's words.
		sent := false
		srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { sent = true }))
		defer srv.Close()
		port := srv.Listener.Addr().(*net.TCPAddr).Port
		cfg := config.Config{Home: paths.Home{Root: t.TempDir()}}
		cfg.Server.Host = "127.0.0.1"
		cfg.Server.Port, cfg.Facade.Port = port, port
		b := TUIBackend{connect: to(client.ForConfig(cfg))}
		_, err := b.Search(t.Context(), api.SearchBody{Query: "x"})
		if err == nil || errors.Is(err, api.ErrNotRunning) || !strings.Contains(err.Error(), "another home's novad") {
			t.Fatalf("err = %v, want the client's other-home error, not api.ErrNotRunning", err)
		}
		if sent {
			t.Error("the search was sent to the other server")
		}
	})
}

// TestTUILaunch: "novactl tui" checks its command line and the
// configuration, then becomes novactl-tui found beside novactl's
// executable, or beside the file a link to novactl names; without it, it
// says where it looked and what to do.
func TestTUILaunch(t *testing.T) {
	bin, linkDir := t.TempDir(), t.TempDir()
	self := filepath.Join(bin, "novactl")
	novatest.Must(t, os.WriteFile(self, nil, 0o755))
	link := filepath.Join(linkDir, "novactl")
	novatest.Must(t, os.Symlink(self, link))

	// run runs "novactl tui --refresh 2s" as exe, on a terminal (the TUI
	// refuses a stderr that is not one), and returns the exit code, what
	// it wrote and what it would have become.
	run := func(t *testing.T, exe string) (code int, stderr string, path string, argv []string) {
		t.Helper()
		term := novatest.NewTerminal(t, nil)
		home := t.TempDir()
		inv := &Invocation{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: term.Slave(), Environ: []string{"NOVA_HOME=" + home}}
		inv.executable = func() (string, error) { return exe, nil }
		inv.exec = func(p string, a, env []string) error {
			path, argv = p, a
			if !slices.Contains(env, "NOVA_HOME="+home) {
				t.Errorf("novactl-tui's environment %q is not novactl's", env)
			}
			// It learns novactl's build, to refuse another one's.
			if paths.Lookup(env, envParentBuild) != version.Get().Build() {
				t.Errorf("novactl-tui's environment %q does not carry novactl's build", env)
			}
			return errors.New("exec is a stand-in here")
		}
		code = Run(t.Context(), []string{"tui", "--refresh", "2s"}, inv)
		return code, term.Output(t), path, argv
	}

	t.Run("missing", func(t *testing.T) {
		code, stderr, path, _ := run(t, self)
		if code != ExitFailure || path != "" {
			t.Fatalf("exit %d, exec %q: want 1 and no exec without novactl-tui", code, path)
		}
		for _, want := range []string{"the program novactl-tui, installed beside novactl", filepath.Join(bin, TUIBinary), "reinstall Nova"} {
			if !strings.Contains(strings.ReplaceAll(stderr, "\r\n", " "), want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
	})
	novatest.Must(t, os.WriteFile(filepath.Join(bin, TUIBinary), nil, 0o755))
	for name, exe := range map[string]string{"beside novactl": self, "beside a link's target": link} {
		t.Run(name, func(t *testing.T) {
			code, stderr, path, argv := run(t, exe)
			if path != filepath.Join(bin, TUIBinary) || !slices.Equal(argv, []string{TUIBinary, "--refresh", "2s"}) {
				t.Fatalf("exec %q %q, want %s with novactl's arguments", path, argv, filepath.Join(bin, TUIBinary))
			}
			if code != ExitFailure || !strings.Contains(stderr, "cannot run") {
				t.Errorf("a failed exec: exit %d, stderr %q; want 1 and what failed", code, stderr)
			}
		})
	}
}

// TestTUIBackend_FollowsNovad: a TUI session outlives novad. Started while
// novad is down, or kept open while it restarts, its searches reach the
// novad that serves the home now, on the ports it published (a home with
// port 0 gets new ones at each start), as the status pane's doctor checks
// do; they went to the ports of the novad running when the TUI started,
// and said novad was not running while the status pane said Ready.
func TestTUIBackend_FollowsNovad(t *testing.T) {
	home := t.TempDir()
	novatest.Must(t, os.WriteFile(filepath.Join(home, "config.yaml"),
		[]byte("server: {host: 127.0.0.1, port: 0}\nfacade: {port: 0}\n"), 0o600))
	inv := &Invocation{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Environ: []string{"NOVA_HOME=" + home, "HOME=" + t.TempDir()}}
	cfg, err := config.Load(inv.Environ)
	novatest.Must(t, err)
	b := newTUIBackend(inv)
	search := func() (*api.SearchResponse, error) {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		return b.Search(ctx, api.SearchBody{Query: "dashboard port", TopK: 5})
	}
	if _, err := search(); !errors.Is(err, api.ErrNotRunning) {
		t.Fatalf("novad down: err = %v, want api.ErrNotRunning", err)
	}
	for i := range 2 {
		stop := startNovad(t, cfg)
		resp, err := search()
		if err != nil || resp == nil || resp.Query != "dashboard port" {
			t.Fatalf("novad start %d: resp %v, err %v; want novad's envelope", i+1, resp, err)
		}
		stop()
	}
}

// to is a TUIBackend.connect that always returns c.
func to(c *client.Client) func() (*client.Client, error) {
	return func() (*client.Client, error) { return c, nil }
}

// startNovad runs novad for cfg's home in this process until the returned
// function stops it.
func startNovad(t *testing.T, cfg config.Config) (stop func()) {
	t.Helper()
	srv, err := daemon.New(daemon.Options{Config: cfg, Environ: []string{"NOVA_HOME=" + cfg.Home.Root}})
	novatest.Must(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() { done <- srv.Run(ctx, ready) }()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("novad: %v", err)
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			if err := <-done; err != nil {
				t.Errorf("novad: %v", err)
			}
		}
	}
	t.Cleanup(stop)
	return stop
}

// waitGenerationLoaded waits until the novad serving cfg's home has
// loaded its active generation: novad is ready before that, as a user
// sees who reads make run's "Generation loaded" after "Nova serving".
func waitGenerationLoaded(t *testing.T, cfg config.Config) {
	t.Helper()
	c := client.ForConfig(cfg)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if h, err := c.Health(t.Context()); err == nil && h.IndexLoaded {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("novad did not load the generation: %+v, %v", h, err)
		}
	}
}

// TestTUIBackend_statusCutShort: doctor's checks cut short by the status
// poll's bound are an error, which keeps the report shown before, not a
// report of no checks.
func TestTUIBackend_statusCutShort(t *testing.T) {
	home := t.TempDir()
	b := TUIBackend{environ: []string{"HOME=" + home, "NOVA_HOME=" + filepath.Join(home, "nova")}}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if rep, err := b.Status(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("status cut short: %s, %d checks, %v; want context.Canceled", rep.Status, len(rep.Checks), err)
	}
}
