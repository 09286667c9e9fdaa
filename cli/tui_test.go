package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/client"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/tui"
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
			if !strings.Contains(errb.String(), c.want) {
				t.Fatalf("stderr lacks %q:\n%s", c.want, errb.String())
			}
			if out.Len() != 0 {
				t.Fatalf("stdout is not clean: %q", out.String())
			}
		})
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
		b := tuiBackend{client: client.New(srv.URL, "")}
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
		b := tuiBackend{client: client.New("http://"+addr, "")}
		_, err = b.Search(t.Context(), api.SearchBody{Query: "x"})
		if !errors.Is(err, tui.ErrNotRunning) || !client.IsNotRunning(err) {
			t.Fatalf("err = %v, want one that wraps tui.ErrNotRunning and the client's error", err)
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
		b := tuiBackend{client: client.ForConfig(cfg)}
		_, err := b.Search(t.Context(), api.SearchBody{Query: "x"})
		if err == nil || errors.Is(err, tui.ErrNotRunning) || !strings.Contains(err.Error(), "another home's novad") {
			t.Fatalf("err = %v, want the client's other-home error, not tui.ErrNotRunning", err)
		}
		if sent {
			t.Error("the search was sent to the other server")
		}
	})
}

func TestTUIEnviron(t *testing.T) {
	e := tuiEnviron{"TERM=xterm", "NO_COLOR=1", "TERM=xterm-256color", "EMPTY="}
	for name, want := range map[string]string{"TERM": "xterm-256color", "NO_COLOR": "1", "EMPTY": "", "MISSING": ""} {
		if got := e.Getenv(name); got != want {
			t.Errorf("Getenv(%q) = %q, want %q", name, got, want)
		}
	}
	if len(e.Environ()) != 4 {
		t.Errorf("Environ() = %v", e.Environ())
	}
}
