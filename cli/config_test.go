package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
)

// configHome makes a NOVA_HOME under a temporary root holding yaml as its
// config.yaml, and returns the environment that points novactl at it.
func configHome(t *testing.T, yaml string) []string {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "nova")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"HOME=" + root, "NOVA_HOME=" + home}
}

// TestConfigCheck_JSON: check --json answers in JSON on stdout, valid or
// not, with one entry per field error and the exit status of the text
// form.
func TestConfigCheck_JSON(t *testing.T) {
	type problem struct{ Field, Env, Message string }
	type report struct {
		OK     *bool
		File   string
		Error  string
		Errors []problem
	}
	check := func(t *testing.T, env []string, wantCode int) report {
		t.Helper()
		code, out, errOut := runCLI(context.Background(), env, "config", "check", "--json")
		if code != wantCode {
			t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, wantCode, out, errOut)
		}
		if errOut != "" {
			t.Errorf("stderr is not empty: %s", errOut)
		}
		var r report
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.OK == nil {
			t.Fatalf("stdout is not a JSON report with ok (%v):\n%s", err, out)
		}
		return r
	}
	t.Run("valid", func(t *testing.T) {
		env := configHome(t, "retrieval: {topK: 5}\n")
		r := check(t, env, ExitOK)
		if !*r.OK || !strings.HasSuffix(r.File, "config.yaml") || len(r.Errors) > 0 {
			t.Errorf("report %+v, want ok naming the file", r)
		}
	})
	t.Run("invalid", func(t *testing.T) {
		env := configHome(t, "server: {port: 99999}\nretrieval: {topK: many}\nsever: 1\n")
		r := check(t, append(env, "NOVA_FACADE_PORT=-1"), ExitFailure)
		want := []problem{
			{"facade.port", "NOVA_FACADE_PORT", `must be a TCP port 0-65535 (got "-1")`},
			{"retrieval.topK", "", `must be an integer (got "many")`},
			{"server.port", "", `must be a TCP port 0-65535 (got "99999")`},
			{"sever", "", "unknown key: the sections are embedding, facade, index, retrieval, server and sources"},
		}
		got := map[string]problem{}
		for _, p := range r.Errors {
			got[p.Field] = p
		}
		for _, w := range want {
			if got[w.Field] != w {
				t.Errorf("error for %s: %+v, want %+v", w.Field, got[w.Field], w)
			}
		}
		if len(r.Errors) != len(want) || *r.OK || !strings.Contains(r.Error, "invalid") {
			t.Errorf("report %+v, want not ok with exactly %d errors", r, len(want))
		}
	})
}

// TestConfigShow_JSONRoundTrips: show --json prints the configuration
// with the file's keys (not the Go field names, nor Home and File), and
// that output, saved as config.yaml, loads to the same configuration.
func TestConfigShow_JSONRoundTrips(t *testing.T) {
	src := t.TempDir()
	env := configHome(t, `server: {port: 4100}
retrieval: {recencyHalfLifeDays: 2.5, denseChannel: "off"}
sources:
  - {name: notes, kind: markdown, path: `+src+`, tags: [infra], include: ["**/*.md"]}
  - {name: log, kind: jsonl, path: `+src+`}
`)
	code, out, errOut := runCLI(context.Background(), env, "config", "show", "--json")
	if code != ExitOK {
		t.Fatalf("show --json: exit %d\n%s", code, errOut)
	}
	var keys map[string]any
	if err := json.Unmarshal([]byte(out), &keys); err != nil {
		t.Fatalf("show --json: %v\n%s", err, out)
	}
	for _, k := range []string{"server", "facade", "embedding", "retrieval", "index", "sources"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("show --json has no key %q:\n%s", k, out)
		}
	}
	if len(keys) != 6 {
		t.Errorf("show --json has keys other than the file's:\n%s", out)
	}
	if !strings.Contains(out, `"keepGenerations": 3`) {
		t.Errorf("show --json does not use the documented key names:\n%s", out)
	}

	again := configHome(t, out)
	if code, out, errOut := runCLI(context.Background(), again, "config", "check"); code != ExitOK {
		t.Fatalf("the output of show --json does not pass config check: exit %d\n%s%s", code, out, errOut)
	}
	want, err := config.Load(env)
	if err != nil {
		t.Fatal(err)
	}
	got, err := config.Load(again)
	if err != nil {
		t.Fatal(err)
	}
	want.Home, want.File, got.File = got.Home, "", ""
	if !reflect.DeepEqual(normalised(got), normalised(want)) {
		t.Errorf("round trip changed the configuration:\ngot  %+v\nwant %+v", got, want)
	}
}

// normalised makes empty lists nil, which the round trip does not keep
// apart and which mean the same.
func normalised(c config.Config) config.Config {
	for i := range c.Sources {
		s := &c.Sources[i]
		for _, l := range []*[]string{&s.Tags, &s.Include, &s.Exclude} {
			if len(*l) == 0 {
				*l = nil
			}
		}
	}
	return c
}

// TestConfigShow_OpenAIEndpoint: config show names the openai profile's
// endpoint and model (what memory text is sent to), never the key, and
// flags an endpoint off this machine that allowRemoteEndpoint permits.
func TestConfigShow_OpenAIEndpoint(t *testing.T) {
	const secret = "sk-test-not-a-real-key-4242"
	for _, tc := range []struct {
		name, yaml string
		want       []string
		notWant    []string
	}{
		{"loopback", `embedding: {provider: openai, endpoint: "http://127.0.0.1:11434/v1", model: nomic-embed-text, apiKeyEnv: TEST_EMBED_KEY}`,
			[]string{"embedding: openai model nomic-embed-text at http://127.0.0.1:11434/v1 dimension 384", "key from $TEST_EMBED_KEY"},
			[]string{"not loopback"}},
		{"remote allowed", `embedding: {provider: openai, endpoint: "https://api.example.com/v1", model: text-embedding-3-small, allowRemoteEndpoint: true}`,
			[]string{"at https://api.example.com/v1", "not loopback: memory text leaves this machine (embedding.allowRemoteEndpoint)"},
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := append(configHome(t, tc.yaml), "TEST_EMBED_KEY="+secret)
			code, out, errOut := runCLI(context.Background(), env, "config", "show")
			if code != ExitOK {
				t.Fatalf("show: exit %d\n%s%s", code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("show lacks %q:\n%s", w, out)
				}
			}
			for _, w := range append(tc.notWant, secret) {
				if strings.Contains(out+errOut, w) {
					t.Errorf("show has %q:\n%s%s", w, out, errOut)
				}
			}
		})
	}
}

// TestConfigGet: config get prints one effective value (defaults, then
// config.yaml, then NOVA_* variables, as show) for a script to read: a
// string bare, any other value as config show --json gives it. An unknown
// key is a usage error (exit 2) that names the field and the nearest key,
// in text on stderr or as show's field errors in --json on stdout.
func TestConfigGet(t *testing.T) {
	env := configHome(t, "server: {host: 127.0.0.1, port: 4137}\nsources:\n  - {name: notes, kind: markdown, path: /tmp/clijson-notes}\n")
	env = append(env, "NOVA_FACADE_PORT=4136")
	for _, tc := range []struct{ key, want string }{
		{"server.port", "4137\n"},
		{"server.host", "127.0.0.1\n"},
		{"facade.port", "4136\n"}, // from the environment, as novad reads it
		{"sources.0.path", "/tmp/clijson-notes\n"},
	} {
		code, out, errOut := runCLI(context.Background(), env, "config", "get", tc.key)
		if code != ExitOK || out != tc.want || errOut != "" {
			t.Errorf("config get %s: exit %d, stdout %q, stderr %q; want %q", tc.key, code, out, errOut, tc.want)
		}
	}
	// A section prints as show --json prints it.
	code, out, _ := runCLI(context.Background(), env, "config", "get", "server")
	var server map[string]any
	if err := json.Unmarshal([]byte(out), &server); code != ExitOK || err != nil || server["port"] != float64(4137) {
		t.Errorf("config get server: exit %d (%v):\n%s", code, err, out)
	}
	code, out, errOut := runCLI(context.Background(), env, "config", "get", "server.port", "--json")
	var doc struct {
		OK    bool
		Key   string
		Value any
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != ExitOK || errOut != "" || !doc.OK || doc.Key != "server.port" || doc.Value != float64(4137) {
		t.Errorf("config get server.port --json: exit %d (%v), stderr %q:\n%s", code, err, errOut, out)
	}

	for _, key := range []string{"server.prot", "sources.3.path", "server.port.x", ""} {
		code, out, errOut := runCLI(context.Background(), env, "config", "get", key)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, "novactl config get: ") || !strings.Contains(errOut, "unknown key "+strconv.Quote(key)) {
			t.Errorf("config get %q: exit %d, stdout %q, stderr %q; want exit 2 naming the key", key, code, out, errOut)
		}
	}
	_, _, errOut = runCLI(context.Background(), env, "config", "get", "server.prot")
	if !strings.Contains(errOut, `did you mean "server.port"?`) {
		t.Errorf("config get server.prot does not suggest server.port: %s", errOut)
	}
	code, out, errOut = runCLI(context.Background(), env, "config", "get", "server.prot", "--json")
	var bad struct {
		OK     *bool
		Error  string
		Errors []config.Problem
	}
	if err := json.Unmarshal([]byte(out), &bad); err != nil || code != ExitUsage || errOut != "" || bad.OK == nil || *bad.OK ||
		len(bad.Errors) != 1 || bad.Errors[0].Field != "server.prot" || !strings.Contains(bad.Errors[0].Message, "server.port") {
		t.Errorf("config get server.prot --json: exit %d (%v), stderr %q:\n%s", code, err, errOut, out)
	}
	for _, args := range [][]string{{"config", "get"}, {"config", "get", "server.port", "facade.port"}} {
		if code, out, errOut := runCLI(context.Background(), env, args...); code != ExitUsage || out != "" || !strings.Contains(errOut, "config get") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want a usage error", args, code, out, errOut)
		}
	}
	// An invalid configuration has no values to get: as show, exit 1.
	bad2 := configHome(t, "sever: {port: 1}\n")
	if code, out, errOut := runCLI(context.Background(), bad2, "config", "get", "server.port"); code != ExitFailure || out != "" || !strings.Contains(errOut, "invalid") {
		t.Errorf("config get of an invalid config.yaml: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
