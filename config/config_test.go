package config_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/paths"
)

// writeConfig makes a runtime home in a temp dir and, unless yaml is "",
// writes its config.yaml. It returns the home and the config path.
func writeConfig(t *testing.T, yaml string) (paths.Home, string) {
	t.Helper()
	home := paths.Home{Root: t.TempDir()}
	if yaml != "" {
		if err := os.WriteFile(home.Config(), []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home, home.Config()
}

// load writes yaml to a fresh home and loads it with environ.
func load(t *testing.T, yaml string, environ ...string) (config.Config, error) {
	t.Helper()
	home, path := writeConfig(t, yaml)
	return config.LoadFile(home, path, environ)
}

// mustLoad is load that fails the test on an error.
func mustLoad(t *testing.T, yaml string, environ ...string) config.Config {
	t.Helper()
	cfg, err := load(t, yaml, environ...)
	if err != nil {
		t.Fatalf("LoadFile: %v\nconfig.yaml:\n%s", err, yaml)
	}
	return cfg
}

// fields lists, sorted, the fields named by the FieldErrors and
// NonLoopbackErrors in err's tree.
func fields(err error) []string {
	var out []string
	var walk func(error)
	walk = func(e error) {
		switch e := e.(type) {
		case *config.FieldError:
			out = append(out, e.Field)
		case *config.NonLoopbackError:
			out = append(out, "server.host")
		case interface{ Unwrap() []error }:
			for _, x := range e.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
	slices.Sort(out)
	return out
}

// wantFields checks that err is an ErrInvalid naming exactly want, and that
// its message names each of them.
func wantFields(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one naming %v", want)
	}
	if !errors.Is(err, config.ErrInvalid) {
		t.Errorf("error %q is not ErrInvalid", err)
	}
	want = slices.Sorted(slices.Values(want))
	if got := fields(err); !slices.Equal(got, want) {
		t.Errorf("error names %v, want %v\nerror: %v", got, want, err)
	}
	for _, f := range want {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("message does not name %s: %v", f, err)
		}
	}
}

// TestDefaults pins every default and checks that they validate.
func TestDefaults(t *testing.T) {
	d := config.Defaults()
	if want := (config.Server{Host: "127.0.0.1", Port: 3037}); d.Server != want {
		t.Errorf("server %+v, want %+v", d.Server, want)
	}
	if want := (config.Facade{Port: 3036}); d.Facade != want {
		t.Errorf("facade %+v, want %+v", d.Facade, want)
	}
	if want := (config.Embedding{Provider: config.ProviderBuiltin, Dimension: 384, BatchSize: 64, TimeoutSeconds: 30}); d.Embedding != want {
		t.Errorf("embedding %+v, want %+v", d.Embedding, want)
	}
	if want := (config.Retrieval{TopK: 8, LatencyBudgetSeconds: 60, MaxConcurrentSearches: 2, RecencyHalfLifeDays: 7, DenseChannel: "on"}); d.Retrieval != want {
		t.Errorf("retrieval %+v, want %+v", d.Retrieval, want)
	}
	if want := (config.Index{KeepGenerations: 3, ChunkMaxChars: 1600, ChunkOverlapChars: 200, ANNMinChunks: 200_000, ContextWords: 30, ContextTurns: 2}); d.Index != want {
		t.Errorf("index %+v, want %+v", d.Index, want)
	}
	if len(d.Sources) != 0 || d.File != "" || d.Home != (paths.Home{}) {
		t.Errorf("sources %v, file %q, home %+v: want none", d.Sources, d.File, d.Home)
	}
	if err := d.Validate(); err != nil {
		t.Errorf("Defaults().Validate: %v", err)
	}
}

// TestLoadFile_noFile: a missing config.yaml is not an error; the defaults
// apply and File is empty.
func TestLoadFile_noFile(t *testing.T) {
	home, path := writeConfig(t, "")
	cfg, err := config.LoadFile(home, path, []string{"PATH=/usr/bin", "HOME=" + t.TempDir()})
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	d := config.Defaults()
	if cfg.Server != d.Server || cfg.Facade != d.Facade || cfg.Embedding != d.Embedding ||
		cfg.Retrieval != d.Retrieval || cfg.Index != d.Index || len(cfg.Sources) != 0 {
		t.Errorf("loaded %+v\nwant defaults %+v", cfg, d)
	}
	if cfg.Home != home || cfg.File != "" {
		t.Errorf("home %+v file %q, want %+v and no file", cfg.Home, cfg.File, home)
	}
}

// TestLoadFile_fileOverrides: every key in the file replaces its default;
// keys the file leaves out keep theirs.
func TestLoadFile_fileOverrides(t *testing.T) {
	t.Run("every key", func(t *testing.T) {
		home, path := writeConfig(t, `
server: {host: localhost, port: 4000}
facade: {port: 4001}
embedding:
  provider: openai
  endpoint: http://127.0.0.1:11434/v1
  model: nomic-embed-text
  dimension: 768
  allowRemoteEndpoint: true
  apiKeyEnv: OLLAMA_KEY
  batchSize: 16
  timeoutSeconds: 5
retrieval: {topK: 12, latencyBudgetSeconds: 90, maxConcurrentSearches: 4, recencyHalfLifeDays: 2.5, denseChannel: "off"}
index: {keepGenerations: 5, chunkMaxChars: 2000, chunkOverlapChars: 100, annMinChunks: 0, contextWords: 0, contextTurns: 3}
`)
		cfg, err := config.LoadFile(home, path, nil)
		if err != nil {
			t.Fatalf("LoadFile: %v", err)
		}
		want := config.Config{
			Server: config.Server{Host: "localhost", Port: 4000},
			Facade: config.Facade{Port: 4001},
			Embedding: config.Embedding{Provider: config.ProviderOpenAI, Endpoint: "http://127.0.0.1:11434/v1", Model: "nomic-embed-text",
				Dimension: 768, AllowRemoteEndpoint: true, APIKeyEnv: "OLLAMA_KEY", BatchSize: 16, TimeoutSeconds: 5},
			Retrieval: config.Retrieval{TopK: 12, LatencyBudgetSeconds: 90, MaxConcurrentSearches: 4, RecencyHalfLifeDays: 2.5, DenseChannel: "off"},
			Index:     config.Index{KeepGenerations: 5, ChunkMaxChars: 2000, ChunkOverlapChars: 100, ANNMinChunks: 0, ContextWords: 0, ContextTurns: 3},
		}
		if cfg.Server != want.Server || cfg.Facade != want.Facade || cfg.Embedding != want.Embedding ||
			cfg.Retrieval != want.Retrieval || cfg.Index != want.Index {
			t.Errorf("loaded %+v\nwant %+v", cfg, want)
		}
		if cfg.Home != home || cfg.File != path {
			t.Errorf("home %+v file %q, want %+v and %q", cfg.Home, cfg.File, home, path)
		}
	})
	t.Run("some keys", func(t *testing.T) {
		cfg := mustLoad(t, "server: {port: 4000}\nretrieval: {topK: 3}\n")
		d := config.Defaults()
		if cfg.Server != (config.Server{Host: d.Server.Host, Port: 4000}) {
			t.Errorf("server %+v", cfg.Server)
		}
		want := d.Retrieval
		want.TopK = 3
		if cfg.Retrieval != want || cfg.Facade != d.Facade || cfg.Embedding != d.Embedding || cfg.Index != d.Index {
			t.Errorf("loaded %+v", cfg)
		}
	})
	t.Run("quoted number", func(t *testing.T) {
		if cfg := mustLoad(t, `server: {port: "3100"}`); cfg.Server.Port != 3100 {
			t.Errorf("port %d, want 3100", cfg.Server.Port)
		}
	})
	t.Run("empty file", func(t *testing.T) {
		home, path := writeConfig(t, "# nothing set\n")
		cfg, err := config.LoadFile(home, path, nil)
		if err != nil {
			t.Fatalf("LoadFile: %v", err)
		}
		if cfg.Server != config.Defaults().Server || cfg.File != path {
			t.Errorf("server %+v file %q", cfg.Server, cfg.File)
		}
	})
}

// TestLoadFile_envOverrides: NOVA_<SECTION>_<KEY> (key case and
// underscores ignored) beats both the file and the default.
func TestLoadFile_envOverrides(t *testing.T) {
	const file = `
server: {port: 4000}
facade: {port: 4001}
retrieval: {topK: 12, maxConcurrentSearches: 3}
embedding: {provider: openai, endpoint: "https://api.example.com/v1", model: m}
`
	tests := []struct {
		name  string
		env   []string
		check func(config.Config) bool
	}{
		{"server port", []string{"NOVA_SERVER_PORT=4100"},
			func(c config.Config) bool { return c.Server.Port == 4100 && c.Facade.Port == 4001 }},
		{"server host", []string{"NOVA_SERVER_HOST=::1"},
			func(c config.Config) bool { return c.Server.Host == "::1" }},
		{"underscored camel key", []string{"NOVA_RETRIEVAL_MAX_CONCURRENT_SEARCHES=7"},
			func(c config.Config) bool { return c.Retrieval.MaxConcurrentSearches == 7 && c.Retrieval.TopK == 12 }},
		{"run-together key", []string{"NOVA_RETRIEVAL_TOPK=5"},
			func(c config.Config) bool { return c.Retrieval.TopK == 5 }},
		{"split key", []string{"NOVA_RETRIEVAL_TOP_K=6"},
			func(c config.Config) bool { return c.Retrieval.TopK == 6 }},
		{"float", []string{"NOVA_RETRIEVAL_RECENCY_HALF_LIFE_DAYS=0.5"},
			func(c config.Config) bool { return c.Retrieval.RecencyHalfLifeDays == 0.5 }},
		{"bool", []string{"NOVA_EMBEDDING_ALLOW_REMOTE_ENDPOINT=true"},
			func(c config.Config) bool { return c.Embedding.AllowRemoteEndpoint }},
		{"string", []string{"NOVA_EMBEDDING_API_KEY_ENV=EMBED_KEY", "NOVA_EMBEDDING_ALLOW_REMOTE_ENDPOINT=1"},
			func(c config.Config) bool { return c.Embedding.APIKeyEnv == "EMBED_KEY" }},
		{"default only", []string{"NOVA_INDEX_ANN_MIN_CHUNKS=0", "NOVA_EMBEDDING_ALLOW_REMOTE_ENDPOINT=true"},
			func(c config.Config) bool { return c.Index.ANNMinChunks == 0 }},
		{"other variables ignored", []string{"NOVA_HOME=/elsewhere", "PATH=/usr/bin", "nova_server_port=1", "NOVA_EMBEDDING_ALLOW_REMOTE_ENDPOINT=true"},
			func(c config.Config) bool { return c.Server.Port == 4000 && c.Embedding.AllowRemoteEndpoint }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The file's remote endpoint needs the env flag, except where
			// the case tests the flag; set it unless the case does.
			env := slices.Clone(tt.env)
			if !slices.ContainsFunc(env, func(s string) bool { return strings.HasPrefix(s, "NOVA_EMBEDDING_ALLOW_REMOTE_ENDPOINT=") }) {
				env = append(env, "NOVA_EMBEDDING_ALLOW_REMOTE_ENDPOINT=true")
			}
			cfg := mustLoad(t, file, env...)
			if !tt.check(cfg) {
				t.Errorf("env %v: loaded %+v", tt.env, cfg)
			}
		})
	}
	t.Run("without the flag the file's remote endpoint is refused", func(t *testing.T) {
		_, err := load(t, file)
		wantFields(t, err, "embedding.endpoint")
	})
	t.Run("invalid env value names the key", func(t *testing.T) {
		_, err := load(t, "", "NOVA_RETRIEVAL_TOPK=0")
		wantFields(t, err, "retrieval.topK")
	})
}

// TestLoadFile_envRangeErrorNamesVariable: a value from the environment
// that is out of range is reported with the variable that set it, as a
// value of the wrong type is, and a file value without one.
func TestLoadFile_envRangeErrorNamesVariable(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		env  []string
		want []string
	}{
		{"port", "", []string{"NOVA_SERVER_PORT=99999"}, []string{`NOVA_SERVER_PORT (server.port): must be a TCP port 0-65535 (got "99999")`}},
		{"topK", "", []string{"NOVA_RETRIEVAL_TOP_K=0"}, []string{"NOVA_RETRIEVAL_TOP_K (retrieval.topK): must be between 1 and 20"}},
		{"string", "", []string{"NOVA_RETRIEVAL_DENSE_CHANNEL=maybe"}, []string{"NOVA_RETRIEVAL_DENSE_CHANNEL (retrieval.denseChannel): must be on or off"}},
		{"not a number", "", []string{"NOVA_RETRIEVAL_RECENCY_HALF_LIFE_DAYS=NaN"}, []string{`NOVA_RETRIEVAL_RECENCY_HALF_LIFE_DAYS (retrieval.recencyHalfLifeDays): must be more than 0 and at most 3650 days (got "NaN")`}},
		{"host", "", []string{"NOVA_SERVER_HOST=0.0.0.0"}, []string{`NOVA_SERVER_HOST (server.host): must be localhost`}},
		{"cross-field", "", []string{"NOVA_SERVER_PORT=4000", "NOVA_FACADE_PORT=4000"}, []string{"NOVA_FACADE_PORT (facade.port): must differ from server.port"}},
		// The type check trims the value, the decoder does not.
		{"spaces around", "", []string{"NOVA_SERVER_PORT= 4000", "NOVA_EMBEDDING_ALLOW_REMOTE_ENDPOINT=true "}, []string{
			`NOVA_SERVER_PORT (server.port): must be an integer (got " 4000")`,
			`NOVA_EMBEDDING_ALLOW_REMOTE_ENDPOINT (embedding.allowRemoteEndpoint): must be true or false (got "true ")`}},
		{"too large", "", []string{"NOVA_RETRIEVAL_TOPK=99999999999999999999", "NOVA_SERVER_PORT=-99999999999999999999"}, []string{
			`NOVA_RETRIEVAL_TOPK (retrieval.topK): is too large (got "99999999999999999999")`,
			`NOVA_SERVER_PORT (server.port): is too small (got "-99999999999999999999")`}},
		// Which one won depended on the order of the environment.
		{"two spellings", "", []string{"NOVA_RETRIEVAL_TOP_K=5", "NOVA_RETRIEVAL_TOPK=6"}, []string{
			`NOVA_RETRIEVAL_TOPK (retrieval.topK): is set by NOVA_RETRIEVAL_TOP_K too: unset one of them`}},
		{"file value names no variable", "retrieval: {topK: 0}\n", []string{"NOVA_SERVER_PORT=99999"},
			[]string{"NOVA_SERVER_PORT (server.port)", "config.yaml: line 1: retrieval.topK: must be between 1 and 20"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.yaml, tt.env...)
			if !errors.Is(err, config.ErrInvalid) {
				t.Fatalf("error %v, want ErrInvalid", err)
			}
			for _, w := range tt.want {
				if !strings.Contains("\n"+err.Error(), w) {
					t.Errorf("error does not say %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestLoad finds config.yaml through NOVA_HOME, else HOME/.nova.
func TestLoad(t *testing.T) {
	t.Run("NOVA_HOME", func(t *testing.T) {
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, "config.yaml"), []byte("server: {port: 4242}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load([]string{"HOME=" + t.TempDir(), "NOVA_HOME=" + root})
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if cfg.Server.Port != 4242 || cfg.Home.Root != root || cfg.File != filepath.Join(root, "config.yaml") {
			t.Errorf("port %d home %q file %q", cfg.Server.Port, cfg.Home.Root, cfg.File)
		}
	})
	t.Run("HOME", func(t *testing.T) {
		user := t.TempDir()
		root := filepath.Join(user, ".nova")
		if err := os.MkdirAll(root, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "config.yaml"), []byte("facade: {port: 4343}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load([]string{"HOME=" + user, "NOVA_FACADE_PORT=4444"})
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if cfg.Facade.Port != 4444 || cfg.Home.Root != root || cfg.File != filepath.Join(root, "config.yaml") {
			t.Errorf("facade port %d home %q file %q", cfg.Facade.Port, cfg.Home.Root, cfg.File)
		}
	})
	t.Run("invalid", func(t *testing.T) {
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, "config.yaml"), []byte("sever: {port: 1}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := config.Load([]string{"NOVA_HOME=" + root})
		wantFields(t, err, "sever.port")
	})
}

// TestLoadFile_unknownKeys: a key the configuration does not define, in
// the file or the environment, is an error naming it.
func TestLoadFile_unknownKeys(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		env  []string
		want []string
	}{
		{"top-level typo", "sever: {port: 3037}\n", nil, []string{"sever.port"}},
		{"top-level scalar", "verbose: true\n", nil, []string{"verbose"}},
		{"nested typo", "server: {prot: 1}\n", nil, []string{"server.prot"}},
		{"key case matters", "retrieval: {topk: 5}\n", nil, []string{"retrieval.topk"}},
		{"too deep", "server: {host: {name: localhost}}\n", nil, []string{"server.host.name"}},
		{"every one reported", "index: {foo: 1, bar: 2}\nembedding: {key: x}\n", nil, []string{"embedding.key", "index.bar", "index.foo"}},
		{"source key", "sources:\n  - {name: a, kind: jsonl, path: /a}\n  - {name: b, kind: jsonl, path: /b, tag: x}\n", nil, []string{"sources[1].tag"}},
		{"cursor source key", "sources:\n  - {name: c, kind: cursor, path: /c, slug: x}\n", nil, []string{"sources[0].slug"}},
		{"chat-export source key", "sources:\n  - {name: c, kind: chat-export, path: /c, service: chatgpt}\n", nil, []string{"sources[0].service"}},
		{"env without key", "", []string{"NOVA_VERBOSE=1"}, []string{"NOVA_VERBOSE"}},
		{"env typo", "", []string{"NOVA_SERVER_PROT=1"}, []string{"NOVA_SERVER_PROT"}},
		{"env sources", "", []string{"NOVA_SOURCES_NAME=x"}, []string{"NOVA_SOURCES_NAME"}},
		{"env every one reported", "", []string{"NOVA_A=1", "NOVA_SERVER_PORT=1", "NOVA_B_C=1"}, []string{"NOVA_A", "NOVA_B_C"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.yaml, tt.env...)
			wantFields(t, err, tt.want...)
			if err != nil && !strings.Contains(err.Error(), "unknown") && !strings.Contains(err.Error(), "list") {
				t.Errorf("message does not say what is wrong: %v", err)
			}
		})
	}
}

// TestLoadFile_unknownKeySaysWhatIsKnown: an unknown key's error says
// what its section takes, so that a misspelling can be fixed from the
// message; a key written in another case (Server.Port) says keys are
// case-sensitive and how to write it.
func TestLoadFile_unknownKeySaysWhatIsKnown(t *testing.T) {
	const sections = "embedding, facade, index, retrieval, server and sources"
	for yaml, want := range map[string]string{
		"sever: {port: 3037}\n":                                 "line 1: sever.port: unknown key: sever is not a section; the sections are " + sections,
		"verbose: true\n":                                       "line 1: verbose: unknown key: the sections are " + sections,
		"server: {prot: 1}\n":                                   "line 1: server.prot: unknown key: server takes host and port",
		"retrieval: {topk: 5}\n":                                "line 1: retrieval.topk: unknown key: keys are case-sensitive: write retrieval.topK",
		"retrieval: {topK: 5, bogus: 1}\n":                      "line 1: retrieval.bogus: unknown key: retrieval takes denseChannel, latencyBudgetSeconds, maxConcurrentSearches, recencyHalfLifeDays and topK",
		"Server: {Port: 4000}\n":                                "line 1: Server.Port: unknown key: keys are case-sensitive: write server.port",
		"Server: {bogus: 1}\n":                                  "line 1: Server.bogus: unknown key: keys are case-sensitive: write server; server takes host and port",
		"Server: {host: {name: x}}\n":                           "line 1: Server.host.name: unknown key: keys are case-sensitive: write server; server.host takes a single value",
		"SERVER: 1\n":                                           "line 1: SERVER: unknown key: keys are case-sensitive: write server",
		"sources: [{name: a, kind: jsonl, Path: /a}]\n":         "line 1: sources[0].Path: unknown key: keys are case-sensitive: write path",
		"server: {host: {name: localhost}}\n":                   "line 1: server.host.name: unknown key: server.host takes a single value",
		"sources: [{name: a, kind: jsonl, path: /a, tag: x}]\n": "line 1: sources[0].tag: unknown key: a source takes name, kind, path, sourceSet, project, agent, tags, lifecycle, workType, authorityRank, retrievalWeight, include and exclude",
	} {
		home, path := writeConfig(t, yaml)
		_, err := config.LoadFile(home, path, nil)
		if want = path + ": " + want; err == nil || err.Error() != want {
			t.Errorf("%q: error\n%v\nwant\n%s", yaml, err, want)
		}
	}
}

// TestLoadFile_overlapAgainstChunkSize: a chunkMaxChars that leaves the
// default overlap too large is reported on the overlap, which the file
// may not set; the error says the two values and that one is a default.
func TestLoadFile_overlapAgainstChunkSize(t *testing.T) {
	_, err := load(t, "index: {chunkMaxChars: 300}\n")
	wantFields(t, err, "index.chunkOverlapChars")
	if want := `index.chunkOverlapChars: must be at least 0 and less than half of index.chunkMaxChars, 300 (its default is 200): lower it, or raise chunkMaxChars (got "200")`; err != nil && !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %v, want it to end %q", err, want)
	}
}

// TestLoadFile_dottedKey: a key written with dots ("server.port: 4000", as
// other tools spell a setting) is not nested by YAML; it is named with its
// line and the nesting it should have, not left to the decoder's
// ": has invalid keys".
func TestLoadFile_dottedKey(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // the whole message, one line per error
	}{
		{"top level", "# settings\nserver.port: 4000\n", []string{
			`line 2: server.port: a key cannot contain ".": nest its parts instead, each on its own line, indented under the one before (server:, port:)`}},
		{"beside another problem", "retrieval.topK: 5\nbogus: 1\n", []string{
			`line 1: retrieval.topK: a key cannot contain ".": nest its parts instead, each on its own line, indented under the one before (retrieval:, topK:)`,
			`line 2: bogus: unknown key: the sections are embedding, facade, index, retrieval, server and sources`}},
		{"in a section", "server:\n  port: 4000\nindex:\n  chunk.max: 1\n", []string{
			`line 4: index.chunk.max: a key cannot contain ".": nest its parts instead, each on its own line, indented under the one before (chunk:, max:)`}},
		{"in a source", "sources:\n  - {name: a, kind: jsonl, path: /a}\n  - name: b\n    kind: jsonl\n    path: /b\n    tags.x: 1\n", []string{
			`line 6: sources[1].tags.x: a key cannot contain ".": nest its parts instead, each on its own line, indented under the one before (tags:, x:)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, path := writeConfig(t, tt.yaml)
			_, err := config.LoadFile(home, path, nil)
			if !errors.Is(err, config.ErrInvalid) {
				t.Fatalf("error %v, want ErrInvalid", err)
			}
			if got, want := err.Error(), path+": "+strings.Join(tt.want, "\n"+path+": "); got != want {
				t.Errorf("error:\n%v\nwant:\n%s", got, want)
			}
		})
	}
}

// TestLoadFile_scalarAsText: a number or true/false where text belongs is
// the text as written, not the decoder's "1" for true.
func TestLoadFile_scalarAsText(t *testing.T) {
	cfg := mustLoad(t, "embedding: {model: true}\nsources: [{name: a, kind: jsonl, path: /a, project: false, agent: 12, tags: [true, 7]}]\n")
	if cfg.Embedding.Model != "true" {
		t.Errorf("model %q, want \"true\"", cfg.Embedding.Model)
	}
	if s := cfg.Sources[0]; s.Project != "false" || s.Agent != "12" || !slices.Equal(s.Tags, []string{"true", "7"}) {
		t.Errorf("project %q, agent %q, tags %q; want \"false\", \"12\", [true 7]", s.Project, s.Agent, s.Tags)
	}
}

// TestLoadFile_misshapen: a section or a source list of the wrong shape is
// one clear error naming the key, not an "unknown key" nor the decoder's
// report of the same problem, with its file and line.
func TestLoadFile_misshapen(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // the whole message, one line per error
	}{
		{"section is a number", "server: 5\n", []string{`line 1: server: must be a section of keys (got "5")`}},
		{"section is a list", "retrieval: [1]\n", []string{`line 1: retrieval: must be a section of keys (got "[1]")`}},
		{"section is empty", "server:\n#  port: 4000\n", []string{`line 1: server: is empty (its keys commented out?): give it a key, or remove the line`}},
		{"sources is empty", "sources:\n#  - {name: a, kind: jsonl, path: /a}\n", []string{`line 1: sources: is empty (its sources commented out?): write "sources: []" for none, or remove the line`}},
		{"sources is a word", "sources: notes\n", []string{`line 1: sources: must be a list of sources (got "notes")`}},
		{"sources is a map", "sources: {name: a}\n", []string{`line 1: sources: must be a list of sources`}},
		{"a source is a word", "sources: [notes, {name: a, kind: jsonl, path: /a, tag: x}]\n", []string{
			`line 1: sources[0]: must be a source: a section of keys such as name, kind and path (got "notes")`,
			// numbered as written, although the first is not a source
			`line 1: sources[1].tag: unknown key: a source takes name, kind, path, sourceSet, project, agent, tags, lifecycle, workType, authorityRank, retrievalWeight, include and exclude`,
		}},
		{"a source field of the wrong type", "sources:\n  - {name: a, kind: jsonl, path: /a, authorityRank: high}\n", []string{
			`line 2: sources[0].authorityRank: must be an integer (got "high")`,
		}},
		{"a key without a value", "server:\n  port:\nindex:\n  annMinChunks: ~\nembedding: {allowRemoteEndpoint: null, model: }\n", []string{
			// not 0 (a random port, ANN never tried) nor false
			`line 2: server.port: has no value: write one, or remove the key to use the default (3037)`,
			`line 4: index.annMinChunks: has no value: write one, or remove the key to use the default (200000)`,
			`line 5: embedding.allowRemoteEndpoint: has no value: write one, or remove the key to use the default (false)`,
			`line 5: embedding.model: has no value: write one, or remove the key`,
		}},
		{"integers too large", "retrieval: {topK: 9223372036854775808}\nserver: {port: 99999999999999999999999}\n", []string{
			// not wrapped round to a negative number, nor "must be an integer"
			`line 1: retrieval.topK: is too large (got "9223372036854775808")`,
			`line 2: server.port: is too large (got "1e+23")`,
		}},
		{"integer too small", "index: {annMinChunks: -1e30}\n", []string{`line 1: index.annMinChunks: is too small (got "-1e+30")`}},
		{"a section for a number", "server:\n  port:\n    x: 1\n", []string{
			`line 2: server.port: must be an integer`,
			`line 3: server.port.x: unknown key: server.port takes a single value`,
		}},
		{"a word read as true or false", "retrieval: {denseChannel: false}\n", []string{
			// not "0", the decoder's rendering of false
			`line 1: retrieval.denseChannel: must be on or off (got "false")`,
		}},
		{"with a bad value elsewhere", "server: 5\nfacade: {port: x}\n", []string{
			`line 2: facade.port: must be an integer (got "x")`,
			`line 1: server: must be a section of keys (got "5")`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, path := writeConfig(t, tt.yaml)
			_, err := config.LoadFile(home, path, nil)
			if !errors.Is(err, config.ErrInvalid) {
				t.Fatalf("error %v, want ErrInvalid", err)
			}
			got := strings.Split(err.Error(), "\n")
			slices.Sort(got)
			var want []string
			for _, w := range tt.want {
				want = append(want, path+": "+w)
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("error:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
			}
		})
	}
}

// TestLoadFile_unreadable: malformed YAML, or a path that cannot be read,
// is an error naming the file.
func TestLoadFile_unreadable(t *testing.T) {
	for _, yaml := range []string{
		"server: [\n",
		"server: {port: 1\n",
		"server:\n\tport: 1\n",
		"server: {port: 1}\n  facade: 2\n",
		"- just\n- a list\n",
	} {
		t.Run(yaml, func(t *testing.T) {
			home, path := writeConfig(t, yaml)
			_, err := config.LoadFile(home, path, nil)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "yaml") {
				t.Errorf("error %v, want a yaml error naming %s", err, path)
			}
		})
	}
	t.Run("tab", func(t *testing.T) {
		// YAML's own message names no tab, or the line before it: the
		// error names the tab's line, and no other.
		for yaml, line := range map[string]int{
			"# ok\nserver:\n  host: 127.0.0.1\n\tport: 1\n": 4,
			"server:\n  port: 1\n\t\n":                      3, // a blank line
			"server:\n\t# a comment\n  port: 1\n":           2,
		} {
			_, err := load(t, yaml)
			if want := fmt.Sprintf("(line %d starts with a tab: YAML indents with spaces only, even on a blank line)", line); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%q: error %v, want it to say %q", yaml, err, want)
			}
			if err != nil && strings.Contains(err.Error(), "yaml: line ") && !strings.Contains(err.Error(), fmt.Sprintf("yaml: line %d: ", line)) {
				t.Errorf("%q: error %v names another line than %d", yaml, err, line)
			}
		}
	})
	t.Run("not settings", func(t *testing.T) {
		// Not the parser's "cannot unmarshal !!seq into map[string]interface {}".
		for yaml, want := range map[string]string{
			"# notes\n- {name: notes, kind: markdown, path: ~/notes}\n": `line 2: the file holds a list, not settings (keys such as server: and sources:, at the start of a line); a list of sources goes under sources:`,
			"notes\n": `line 1: the file holds a single value, not settings (keys such as server: and sources:, at the start of a line)`,
		} {
			home, path := writeConfig(t, yaml)
			_, err := config.LoadFile(home, path, nil)
			if want = "invalid configuration: " + path + ": " + want; err == nil || err.Error() != want || !errors.Is(err, config.ErrInvalid) {
				t.Errorf("%q: error %v, want %q", yaml, err, want)
			}
		}
	})
	t.Run("link to nothing", func(t *testing.T) {
		// A config kept in a dotfiles repository that moved: not "no
		// file", whose defaults would serve no source.
		home := paths.Home{Root: t.TempDir()}
		target := filepath.Join(t.TempDir(), "dotfiles", "nova.yaml")
		if err := os.Symlink(target, home.Config()); err != nil {
			t.Fatal(err)
		}
		_, err := config.LoadFile(home, home.Config(), nil)
		if want := "read " + home.Config() + ": it is a link to " + target + ", which does not exist"; err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
	})
	t.Run("directory", func(t *testing.T) {
		home := paths.Home{Root: t.TempDir()}
		if err := os.Mkdir(home.Config(), 0o700); err != nil {
			t.Fatal(err)
		}
		_, err := config.LoadFile(home, home.Config(), nil)
		if want := home.Config() + " is a folder, not a config file"; err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
	})
	t.Run("home is a file", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "nova")
		if err := os.WriteFile(root, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		home := paths.Home{Root: root}
		_, err := config.LoadFile(home, home.Config(), nil)
		if want := "read " + home.Config() + ": " + root + " is a file, not a folder"; err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
	})
}

// TestLoadFile_wrongType: a value of the wrong type is ErrInvalid naming
// the field, whether it comes from the file or the environment.
func TestLoadFile_wrongType(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		env  []string
		want []string
	}{
		{"file", "server: {port: abc}\n", nil, []string{"server.port"}},
		{"env", "", []string{"NOVA_RETRIEVAL_TOPK=many"}, []string{"retrieval.topK", "NOVA_RETRIEVAL_TOPK"}},
		{"env with underscores", "", []string{"NOVA_RETRIEVAL_TOP_K=abc"}, []string{"retrieval.topK", "NOVA_RETRIEVAL_TOP_K", `"abc"`}},
		{"every one reported", "server: {port: abc}\nfacade: {port: [1]}\n", nil, []string{"server.port", "facade.port"}},
		{"source field", "sources:\n  - {name: a, kind: jsonl, path: /a, authorityRank: high}\n", nil, []string{"sources[0].authorityRank"}},
		{"source not a map", "sources: [notes]\n", nil, []string{"sources[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.yaml, tt.env...)
			if !errors.Is(err, config.ErrInvalid) {
				t.Fatalf("error %v, want ErrInvalid", err)
			}
			for _, f := range tt.want {
				if !strings.Contains(err.Error(), f) {
					t.Errorf("message does not name %s: %v", f, err)
				}
			}
		})
	}
}

// TestLoadFile_invalid: each out-of-range or unsupported value is an
// error naming exactly its field.
func TestLoadFile_invalid(t *testing.T) {
	const openai = "embedding: {provider: openai, model: m, endpoint: %s}\n"
	endpoint := func(u string) string { return strings.Replace(openai, "%s", `"`+u+`"`, 1) }
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{"server.port negative", "server: {port: -1}\n", []string{"server.port"}},
		{"server.port too big", "server: {port: 65536}\n", []string{"server.port"}},
		{"facade.port negative", "facade: {port: -5}\n", []string{"facade.port"}},
		{"facade.port too big", "facade: {port: 65536}\n", []string{"facade.port"}},
		{"facade.port equals server.port", "server: {port: 4000}\nfacade: {port: 4000}\n", []string{"facade.port"}},

		{"provider unknown", "embedding: {provider: ollama}\n", []string{"embedding.provider"}},
		{"provider case", "embedding: {provider: Builtin}\n", []string{"embedding.provider"}},
		{"openai without endpoint", "embedding: {provider: openai, model: m}\n", []string{"embedding.endpoint"}},
		{"openai without model", "embedding: {provider: openai, endpoint: \"http://127.0.0.1:11434/v1\"}\n", []string{"embedding.model"}},
		{"openai without either", "embedding: {provider: openai}\n", []string{"embedding.endpoint", "embedding.model"}},
		{"endpoint remote", endpoint("https://api.example.com/v1"), []string{"embedding.endpoint"}},
		{"endpoint private network", endpoint("http://192.168.1.5:11434/v1"), []string{"embedding.endpoint"}},
		{"endpoint any address", endpoint("http://0.0.0.0:11434/v1"), []string{"embedding.endpoint"}},
		{"endpoint loopback-looking name", endpoint("http://127.0.0.1.nip.io/v1"), []string{"embedding.endpoint"}},
		{"endpoint scheme", endpoint("ftp://127.0.0.1/v1"), []string{"embedding.endpoint"}},
		{"endpoint without scheme", endpoint("127.0.0.1:11434/v1"), []string{"embedding.endpoint"}},
		{"endpoint without host", endpoint("http:///v1"), []string{"embedding.endpoint"}},
		{"endpoint userinfo", endpoint("http://user:pass@127.0.0.1/v1"), []string{"embedding.endpoint"}},
		{"endpoint userinfo hiding the host", endpoint("http://127.0.0.1:80@evil.example/v1"), []string{"embedding.endpoint"}},
		{"endpoint userinfo even when remote allowed", "embedding: {provider: openai, model: m, allowRemoteEndpoint: true, endpoint: \"https://u:p@api.example.com/v1\"}\n", []string{"embedding.endpoint"}},
		{"dimension too small", "embedding: {dimension: 7}\n", []string{"embedding.dimension"}},
		{"dimension too big", "embedding: {dimension: 4097}\n", []string{"embedding.dimension"}},
		{"batchSize zero", "embedding: {batchSize: 0}\n", []string{"embedding.batchSize"}},
		{"batchSize too big", "embedding: {batchSize: 513}\n", []string{"embedding.batchSize"}},
		{"timeoutSeconds zero", "embedding: {timeoutSeconds: 0}\n", []string{"embedding.timeoutSeconds"}},
		{"timeoutSeconds too big", "embedding: {timeoutSeconds: 601}\n", []string{"embedding.timeoutSeconds"}},

		{"topK zero", "retrieval: {topK: 0}\n", []string{"retrieval.topK"}},
		{"topK too big", "retrieval: {topK: 21}\n", []string{"retrieval.topK"}},
		{"latencyBudgetSeconds zero", "retrieval: {latencyBudgetSeconds: 0}\n", []string{"retrieval.latencyBudgetSeconds"}},
		{"latencyBudgetSeconds too big", "retrieval: {latencyBudgetSeconds: 121}\n", []string{"retrieval.latencyBudgetSeconds"}},
		{"maxConcurrentSearches zero", "retrieval: {maxConcurrentSearches: 0}\n", []string{"retrieval.maxConcurrentSearches"}},
		{"maxConcurrentSearches too big", "retrieval: {maxConcurrentSearches: 65}\n", []string{"retrieval.maxConcurrentSearches"}},
		{"recencyHalfLifeDays zero", "retrieval: {recencyHalfLifeDays: 0}\n", []string{"retrieval.recencyHalfLifeDays"}},
		{"recencyHalfLifeDays negative", "retrieval: {recencyHalfLifeDays: -1}\n", []string{"retrieval.recencyHalfLifeDays"}},
		{"recencyHalfLifeDays too big", "retrieval: {recencyHalfLifeDays: 3650.5}\n", []string{"retrieval.recencyHalfLifeDays"}},
		{"recencyHalfLifeDays not a number", "retrieval: {recencyHalfLifeDays: .nan}\n", []string{"retrieval.recencyHalfLifeDays"}},
		{"denseChannel", "retrieval: {denseChannel: sometimes}\n", []string{"retrieval.denseChannel"}},

		{"keepGenerations one", "index: {keepGenerations: 1}\n", []string{"index.keepGenerations"}},
		{"keepGenerations too big", "index: {keepGenerations: 51}\n", []string{"index.keepGenerations"}},
		{"chunkMaxChars too small", "index: {chunkMaxChars: 199, chunkOverlapChars: 0}\n", []string{"index.chunkMaxChars"}},
		{"chunkMaxChars too big", "index: {chunkMaxChars: 20001}\n", []string{"index.chunkMaxChars"}},
		{"chunkOverlapChars negative", "index: {chunkOverlapChars: -1}\n", []string{"index.chunkOverlapChars"}},
		{"chunkOverlapChars half", "index: {chunkMaxChars: 1000, chunkOverlapChars: 500}\n", []string{"index.chunkOverlapChars"}},
		{"annMinChunks negative", "index: {annMinChunks: -1}\n", []string{"index.annMinChunks"}},
		{"contextWords negative", "index: {contextWords: -1}\n", []string{"index.contextWords"}},
		{"contextWords too big", "index: {contextWords: 201}\n", []string{"index.contextWords"}},
		{"contextTurns negative", "index: {contextTurns: -1}\n", []string{"index.contextTurns"}},
		{"contextTurns too big", "index: {contextTurns: 11}\n", []string{"index.contextTurns"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.yaml)
			wantFields(t, err, tt.want...)
		})
	}
}

// TestLoadFile_valid: the edges of every range, and the endpoints the
// rules accept, load.
func TestLoadFile_valid(t *testing.T) {
	for _, yaml := range []string{
		"server: {port: 0}\nfacade: {port: 0}\n",
		"server: {port: 65535}\nfacade: {port: 1}\n",
		"server: {host: LOCALHOST}\n",
		"server: {host: 127.9.8.7}\n",
		"server: {host: \"[::1]\"}\n",
		"embedding: {dimension: 8, batchSize: 1, timeoutSeconds: 1}\n",
		"embedding: {dimension: 4096, batchSize: 512, timeoutSeconds: 600}\n",
		"embedding: {provider: builtin, endpoint: \"not checked\", model: ignored}\n",
		"embedding: {provider: openai, model: m, endpoint: \"http://localhost:11434/v1\"}\n",
		"embedding: {provider: openai, model: m, endpoint: \"https://127.0.0.2/v1\"}\n",
		"embedding: {provider: openai, model: m, endpoint: \"http://[::1]:8080/v1\"}\n",
		"embedding: {provider: openai, model: m, endpoint: \"https://api.example.com/v1\", allowRemoteEndpoint: true}\n",
		"retrieval: {topK: 1, latencyBudgetSeconds: 1, maxConcurrentSearches: 1, recencyHalfLifeDays: 0.01, denseChannel: \"off\"}\n",
		"retrieval: {topK: 20, latencyBudgetSeconds: 120, maxConcurrentSearches: 64, recencyHalfLifeDays: 3650}\n",
		"index: {keepGenerations: 2, chunkMaxChars: 200, chunkOverlapChars: 99, annMinChunks: 0, contextWords: 0}\n",
		"index: {keepGenerations: 50, chunkMaxChars: 20000, chunkOverlapChars: 0, contextWords: 200}\n",
	} {
		t.Run(yaml, func(t *testing.T) { mustLoad(t, yaml) })
	}
}

// TestLoadFile_hostWithSpaces: a loopback host with a space around it
// ("127.0.0.1 ", copied with one) is still refused, as nothing binds it,
// and the error says the space is the problem; it read as if 127.0.0.1
// were not loopback.
func TestLoadFile_hostWithSpaces(t *testing.T) {
	_, err := load(t, "server: {host: \"127.0.0.1 \"}\n")
	wantFields(t, err, "server.host")
	if want := `(got "127.0.0.1 "): remove the spaces around it`; err != nil && !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to say %q", err, want)
	}
}

// TestLoadFile_nonLoopback: a non-loopback server.host is a
// NonLoopbackError carrying the host, reported with the other problems.
func TestLoadFile_nonLoopback(t *testing.T) {
	for _, host := range []string{"0.0.0.0", "::", "192.168.1.5", "10.0.0.1", "example.com", "localhost.example.com", "127.1", "::ffff:127.0.0.1", ""} {
		t.Run(host, func(t *testing.T) {
			_, err := load(t, "server: {host: \""+host+"\"}\n")
			wantFields(t, err, "server.host")
			var nl *config.NonLoopbackError
			if !errors.As(err, &nl) || nl.Host != host {
				t.Fatalf("error %v, want NonLoopbackError for %q", err, host)
			}
			if !strings.Contains(err.Error(), "rag-server-non-loopback") {
				t.Errorf("message lacks the doctor code: %v", err)
			}
		})
	}
	t.Run("from env", func(t *testing.T) {
		_, err := load(t, "server: {host: 127.0.0.1}\n", "NOVA_SERVER_HOST=0.0.0.0")
		var nl *config.NonLoopbackError
		if !errors.As(err, &nl) || nl.Host != "0.0.0.0" {
			t.Errorf("error %v, want NonLoopbackError for 0.0.0.0", err)
		}
	})
}

// TestLoadFile_everyKindReported: unknown keys, values of the wrong type
// and invalid values are reported together, not the first kind found.
func TestLoadFile_everyKindReported(t *testing.T) {
	_, err := load(t, "sever: {port: 3037}\nretrieval: {topK: many}\nsources:\n  - {name: a, kind: pdf, path: /a, tag: x}\n",
		"NOVA_INDEX_CHUNK_MAX_CHARS=lots")
	wantFields(t, err, "sever.port", "retrieval.topK", "index.chunkMaxChars", "sources[0].kind", "sources[0].tag")
	if !strings.Contains(err.Error(), "NOVA_INDEX_CHUNK_MAX_CHARS (index.chunkMaxChars): must be an integer") {
		t.Errorf("the environment variable is not named: %v", err)
	}
}

// TestLoadFile_allReported: Validate collects every problem, not the first.
func TestLoadFile_allReported(t *testing.T) {
	_, err := load(t, `
server: {host: 0.0.0.0, port: -1}
embedding: {provider: openai, dimension: 1}
retrieval: {topK: 0, denseChannel: maybe}
index: {keepGenerations: 0}
sources:
  - {name: a, kind: pdf}
`)
	wantFields(t, err, "server.host", "server.port", "embedding.endpoint", "embedding.model", "embedding.dimension",
		"retrieval.topK", "retrieval.denseChannel", "index.keepGenerations", "sources[0].kind", "sources[0].path")
	var nl *config.NonLoopbackError
	if !errors.As(err, &nl) {
		t.Errorf("joined error hides the NonLoopbackError: %v", err)
	}
}

// TestLoadFile_endpointSecret: a refused endpoint with user information
// never puts the password (or a token in the user name) in the error.
// TestLoadFile_apiKeyEnvIsAName: embedding.apiKeyEnv names a variable; a
// key pasted there instead was taken as the name of a variable that is
// not set (requests went without a key) and shown by config show --json.
// It is refused without being echoed.
func TestLoadFile_apiKeyEnvIsAName(t *testing.T) {
	const key = "sk-proj-Abc123"
	for _, env := range []string{"OPENAI_API_KEY", "nova_key_2", "_K"} {
		if cfg := mustLoad(t, "embedding: {apiKeyEnv: "+env+"}\n"); cfg.Embedding.APIKeyEnv != env {
			t.Errorf("apiKeyEnv %q, want %q", cfg.Embedding.APIKeyEnv, env)
		}
	}
	for _, bad := range []string{key, "$OPENAI_API_KEY", "OPENAI API KEY", "2KEY"} {
		_, err := load(t, "embedding: {provider: openai, model: m, endpoint: \"http://127.0.0.1:11434/v1\", apiKeyEnv: \""+bad+"\"}\n")
		wantFields(t, err, "embedding.apiKeyEnv")
		if err != nil && strings.Contains(err.Error(), bad) {
			t.Errorf("error echoes the value, which may be the key: %v", err)
		}
	}
	_, err := load(t, "", "NOVA_EMBEDDING_API_KEY_ENV="+key)
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "NOVA_EMBEDDING_API_KEY_ENV (embedding.apiKeyEnv)") {
		t.Errorf("error %v, want it to name the variable and not echo the value", err)
	}
}

func TestLoadFile_endpointSecret(t *testing.T) {
	const secret = "s3cret"
	for _, u := range []string{
		"http://user:" + secret + "@127.0.0.1:11434/v1",
		"https://user:" + secret + "@api.example.com/v1",
		"http://" + secret + "@127.0.0.1/v1",
		"ftp://user:" + secret + "@127.0.0.1/v1",
		"user:" + secret + "@127.0.0.1:11434",
		"http://user:" + secret + "%zz@127.0.0.1/v1",
		"http://user:" + secret + "@127.0.0.1:bad/v1",
		"http://127.0.0.1:11434/v1?api-key=" + secret,
		"https://api.example.com/v1?key=" + secret + "#x",
	} {
		t.Run(u, func(t *testing.T) {
			for _, allow := range []string{"false", "true"} {
				_, err := load(t, "embedding: {provider: openai, model: m}\n",
					"NOVA_EMBEDDING_ENDPOINT="+u, "NOVA_EMBEDDING_ALLOW_REMOTE_ENDPOINT="+allow)
				wantFields(t, err, "embedding.endpoint")
				if err != nil && strings.Contains(err.Error(), secret) {
					t.Errorf("allowRemote %s: error echoes the secret: %v", allow, err)
				}
			}
		})
	}
	t.Run("user information is shown replaced", func(t *testing.T) {
		_, err := load(t, "embedding: {provider: openai, model: m, endpoint: \"http://user:"+secret+"@127.0.0.1/v1\"}\n")
		var fe *config.FieldError
		if !errors.As(err, &fe) || fe.Value != "http://xxxxx@127.0.0.1/v1" {
			t.Errorf("error %v, want the endpoint with its user information replaced", err)
		}
	})
	t.Run("an endpoint without one is shown as is", func(t *testing.T) {
		_, err := load(t, "embedding: {provider: openai, model: m, endpoint: \"http://example.com/v1\"}\n")
		var fe *config.FieldError
		if !errors.As(err, &fe) || fe.Value != "http://example.com/v1" {
			t.Errorf("error %v, want the endpoint shown", err)
		}
	})
}

// TestLoadFile_sources: sources load with ~ and relative paths resolved,
// and each invalid field is named with its index.
func TestLoadFile_sources(t *testing.T) {
	t.Run("valid", func(t *testing.T) {
		user := t.TempDir()
		home := paths.Home{Root: t.TempDir()}
		// A config file outside the home: relative paths follow the file.
		path := filepath.Join(t.TempDir(), "custom.yaml")
		yaml := `
sources:
  - {name: notes, kind: markdown, path: "~/notes", sourceSet: notes, include: ["**/*.md"], exclude: [drafts/*]}
  - {name: codex, kind: codex, path: "~"}
  - {name: claude, kind: claude-code, path: /var/claude/projects}
  - {name: cursor, kind: cursor, path: ~/.cursor/projects}
  - {name: chats, kind: chat-export, path: ~/exports}
  - name: export
    kind: jsonl
    path: data/memory.jsonl
    project: billing
    agent: codex
    tags: [decision, ops]
    lifecycle: active
    workType: incident
    authorityRank: 100
    retrievalWeight: 2
  - {name: tagged, kind: jsonl, path: ./t.jsonl, tags: "a,b", authorityRank: 0, retrievalWeight: 0}
  - {name: one-string, kind: markdown, path: ./m, tags: "x, y", include: "**/*.{md,txt}", exclude: "a/*, {b,c}/*"}
`
		if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.LoadFile(home, path, []string{"HOME=" + user})
		if err != nil {
			t.Fatalf("LoadFile: %v", err)
		}
		dir := filepath.Dir(path)
		want := []config.Source{
			{Name: "notes", Kind: config.KindMarkdown, Path: filepath.Join(user, "notes"), SourceSet: "notes", Include: []string{"**/*.md"}, Exclude: []string{"drafts/*"}},
			{Name: "codex", Kind: config.KindCodex, Path: user},
			{Name: "claude", Kind: config.KindClaudeCode, Path: "/var/claude/projects"},
			{Name: "cursor", Kind: config.KindCursor, Path: filepath.Join(user, ".cursor", "projects")},
			{Name: "chats", Kind: config.KindChatExport, Path: filepath.Join(user, "exports")},
			{Name: "export", Kind: config.KindJSONL, Path: filepath.Join(dir, "data", "memory.jsonl"), Project: "billing", Agent: "codex",
				Tags: []string{"decision", "ops"}, Lifecycle: "active", WorkType: "incident", AuthorityRank: 100, RetrievalWeight: 2},
			{Name: "tagged", Kind: config.KindJSONL, Path: filepath.Join(dir, "t.jsonl"), Tags: []string{"a", "b"}},
			// Split at the commas outside braces, without the spaces.
			{Name: "one-string", Kind: config.KindMarkdown, Path: filepath.Join(dir, "m"), Tags: []string{"x", "y"},
				Include: []string{"**/*.{md,txt}"}, Exclude: []string{"a/*", "{b,c}/*"}},
		}
		if len(cfg.Sources) != len(want) {
			t.Fatalf("sources %+v, want %+v", cfg.Sources, want)
		}
		for i, s := range cfg.Sources {
			w := want[i]
			if s.Name != w.Name || s.Kind != w.Kind || s.Path != w.Path || s.SourceSet != w.SourceSet || s.Project != w.Project ||
				s.Agent != w.Agent || s.Lifecycle != w.Lifecycle || s.WorkType != w.WorkType || s.AuthorityRank != w.AuthorityRank ||
				s.RetrievalWeight != w.RetrievalWeight || !slices.Equal(s.Tags, w.Tags) || !slices.Equal(s.Include, w.Include) ||
				!slices.Equal(s.Exclude, w.Exclude) {
				t.Errorf("sources[%d] = %+v, want %+v", i, s, w)
			}
		}
	})

	tests := []struct {
		name    string
		sources string
		want    []string
	}{
		{"name missing", "- {kind: jsonl, path: /a}", []string{"sources[0].name"}},
		{"name duplicate", "- {name: a, kind: jsonl, path: /a}\n- {name: b, kind: jsonl, path: /b}\n- {name: a, kind: markdown, path: /c}", []string{"sources[2].name"}},
		{"name with slash", "- {name: a/b, kind: jsonl, path: /a}", []string{"sources[0].name"}},
		{"name with backslash", "- {name: 'a\\b', kind: jsonl, path: /a}", []string{"sources[0].name"}},
		{"name with colon", "- {name: 'a:b', kind: jsonl, path: /a}", []string{"sources[0].name"}},
		{"name with spaces around", "- {name: ' a', kind: jsonl, path: /a}", []string{"sources[0].name"}},
		{"kind unknown", "- {name: a, kind: pdf, path: /a}", []string{"sources[0].kind"}},
		{"kind missing", "- {name: a, path: /a}", []string{"sources[0].kind"}},
		{"kind case", "- {name: a, kind: JSONL, path: /a}", []string{"sources[0].kind"}},
		{"cursor kind case", "- {name: a, kind: Cursor, path: /a}", []string{"sources[0].kind"}},
		{"cursor path missing", "- {name: a, kind: cursor}", []string{"sources[0].path"}},
		{"chat-export spelled with an underscore", "- {name: a, kind: chat_export, path: /a}", []string{"sources[0].kind"}},
		{"chat-export path missing", "- {name: a, kind: chat-export}", []string{"sources[0].path"}},
		{"path missing", "- {name: a, kind: jsonl}", []string{"sources[0].path"}},
		{"authorityRank negative", "- {name: a, kind: jsonl, path: /a, authorityRank: -1}", []string{"sources[0].authorityRank"}},
		{"authorityRank too big", "- {name: a, kind: jsonl, path: /a, authorityRank: 101}", []string{"sources[0].authorityRank"}},
		{"retrievalWeight negative", "- {name: a, kind: jsonl, path: /a, retrievalWeight: -0.1}", []string{"sources[0].retrievalWeight"}},
		{"retrievalWeight too big", "- {name: a, kind: jsonl, path: /a, retrievalWeight: 2.5}", []string{"sources[0].retrievalWeight"}},
		{"retrievalWeight not a number", "- {name: a, kind: jsonl, path: /a, retrievalWeight: .nan}", []string{"sources[0].retrievalWeight"}},
		{"include parent", "- {name: a, kind: jsonl, path: /a, include: ['../x']}", []string{"sources[0].include[0]"}},
		{"include absolute", "- {name: a, kind: jsonl, path: /a, include: ['/etc/*']}", []string{"sources[0].include[0]"}},
		{"include empty", "- {name: a, kind: jsonl, path: /a, include: ['']}", []string{"sources[0].include[0]"}},
		{"include bad pattern", "- {name: a, kind: jsonl, path: /a, include: ['[']}", []string{"sources[0].include[0]"}},
		{"exclude parent inside", "- {name: a, kind: jsonl, path: /a, include: ['*.md'], exclude: ['a/../b']}", []string{"sources[0].exclude[0]"}},
		{"second source", "- {name: a, kind: jsonl, path: /a}\n- {name: b, kind: codex}", []string{"sources[1].path"}},
		{"every field reported", "- {name: '', kind: x, authorityRank: 200}", []string{"sources[0].name", "sources[0].kind", "sources[0].path", "sources[0].authorityRank"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			yaml := "sources:\n  " + strings.ReplaceAll(tt.sources, "\n", "\n  ") + "\n"
			_, err := load(t, yaml)
			wantFields(t, err, tt.want...)
		})
	}
}

// TestFieldError checks the message forms and the ErrInvalid wrapping.
func TestFieldError(t *testing.T) {
	with := &config.FieldError{Field: "server.port", Value: "-1", Reason: "must be a TCP port 0-65535"}
	if got, want := with.Error(), `server.port: must be a TCP port 0-65535 (got "-1")`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	without := &config.FieldError{Field: "embedding.model", Reason: "is required"}
	if got, want := without.Error(), "embedding.model: is required"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	inFile := &config.FieldError{Field: "server.port", Value: "-1", Reason: "must be a TCP port 0-65535", File: "/n/config.yaml", Line: 3}
	if got, want := inFile.Error(), `/n/config.yaml: line 3: server.port: must be a TCP port 0-65535 (got "-1")`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	nl := &config.NonLoopbackError{Host: "0.0.0.0"}
	if !strings.HasPrefix(nl.Error(), "server.host: ") || !strings.Contains(nl.Error(), `"0.0.0.0"`) {
		t.Errorf("NonLoopbackError.Error() = %q", nl.Error())
	}
	for _, err := range []error{with, without, nl} {
		if !errors.Is(err, config.ErrInvalid) {
			t.Errorf("%v is not ErrInvalid", err)
		}
	}
}

// TestValidate checks a Config built in code, as tests elsewhere do.
func TestValidate(t *testing.T) {
	cfg := config.Defaults()
	cfg.Sources = []config.Source{{Name: "a", Kind: config.KindJSONL, Path: "/a"}}
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	cfg.Server.Host = "example.com"
	cfg.Sources = append(cfg.Sources, config.Source{Name: "a", Kind: config.KindCodex})
	wantFields(t, cfg.Validate(), "server.host", "sources[1].name", "sources[1].path")
}

// TestIsLoopbackHost is the truth table of the loopback rule.
func TestIsLoopbackHost(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"localhost", true},
		{"LocalHost", true},
		{"localhoſt", false}, // U+017F, which Unicode case folding takes for an s
		{"127.0.0.1", true},
		{"127.1.2.3", true},
		{"127.255.255.254", true},
		{"::1", true},
		{"[::1]", true},
		{"0:0:0:0:0:0:0:1", true},
		{"", false},
		{"0.0.0.0", false},
		{"::", false},
		{"[::]", false},
		{"0::1]", false},
		{"[::1", false},
		{"::1]", false},
		{"[[::1]]", false},
		{"[]", false},
		{"10.0.0.1", false},
		{"192.168.1.5", false},
		{"128.0.0.1", false},
		{"example.com", false},
		{"localhost.", false},
		{"localhost.example.com", false},
		{"127.0.0.1.nip.io", false},
		{" 127.0.0.1", false},
		{"127.1", false},
		{"2130706433", false},
		{"::ffff:127.0.0.1", false},
		{"::1%lo", false},
		{"fe80::1", false},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			if got := config.IsLoopbackHost(tt.host); got != tt.want {
				t.Errorf("IsLoopbackHost(%q) = %v, want %v", tt.host, got, tt.want)
			}
		})
	}
}

// TestBindHost: localhost binds 127.0.0.1 without a lookup; brackets go.
func TestBindHost(t *testing.T) {
	tests := []struct{ host, want string }{
		{"localhost", "127.0.0.1"},
		{"LOCALHOST", "127.0.0.1"},
		{"127.0.0.1", "127.0.0.1"},
		{"127.0.0.2", "127.0.0.2"},
		{"::1", "::1"},
		{"[::1]", "::1"},
		// The long spelling is the address clients send in Host.
		{"0:0:0:0:0:0:0:1", "::1"},
		{"[0000::0001]", "::1"},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			if got := config.BindHost(tt.host); got != tt.want {
				t.Errorf("BindHost(%q) = %q, want %q", tt.host, got, tt.want)
			}
		})
	}
}

// TestLoadFile_doublestarGlobs: include and exclude take doublestar
// globs (any depth, alternatives); a malformed one names its field.
func TestLoadFile_doublestarGlobs(t *testing.T) {
	cfg := mustLoad(t, "sources:\n  - {name: a, kind: markdown, path: /a, include: ['**/drafts/*', '{notes,journal}/**/*.md'], exclude: ['archive/**']}\n")
	if got := cfg.Sources[0].Include; len(got) != 2 || got[1] != "{notes,journal}/**/*.md" {
		t.Errorf("include = %q", got)
	}
	_, err := load(t, "sources:\n  - {name: a, kind: markdown, path: /a, exclude: ['archive/{a,b']}\n")
	wantFields(t, err, "sources[0].exclude[0]")

	// The glob's own field, on its own line: "include/exclude[1]", on
	// the source's first line, named a list the file does not have.
	_, err = load(t, "sources:\n  - name: a\n    kind: markdown\n    path: /a\n    include:\n      - '*.md'\n      - ''\n    exclude:\n      - '../x'\n")
	wantFields(t, err, "sources[0].include[1]", "sources[0].exclude[0]")
	for _, want := range []string{"line 7: sources[0].include[1]", "line 9: sources[0].exclude[0]"} {
		if err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to say %q", err, want)
		}
	}
}

// TestParse: the content of a config.yaml not yet written reads as the
// file would, sources, ~ and errors alike, and nothing is created.
func TestParse(t *testing.T) {
	environ := []string{"HOME=/home/ada"}
	for _, yaml := range []string{
		"sources:\n  - {name: codex, kind: codex, path: ~/.codex/sessions}\n  - {name: notes, kind: markdown, path: notes}\n",
		"server: {port: 99999}\nsources:\n  - {name: x, kind: nope, path: ~/x}\nsever: 1\n",
		"",
	} {
		home, path := writeConfig(t, yaml)
		fromFile, fileErr := config.LoadFile(home, path, environ)
		other := paths.Home{Root: filepath.Join(t.TempDir(), "nova")}
		parsed, err := config.Parse(other, other.Config(), []byte(yaml), environ)
		if fmt.Sprint(err) != strings.ReplaceAll(fmt.Sprint(fileErr), path, other.Config()) {
			t.Errorf("Parse error %v, LoadFile error %v", err, fileErr)
		}
		if err == nil {
			if parsed.File != other.Config() || parsed.Home != other {
				t.Errorf("Parse names file %q, home %v", parsed.File, parsed.Home)
			}
			for i := range fromFile.Sources {
				fromFile.Sources[i].Path = strings.Replace(fromFile.Sources[i].Path, home.Root, other.Root, 1)
			}
			if !slices.EqualFunc(parsed.Sources, fromFile.Sources, func(a, b config.Source) bool { return fmt.Sprint(a) == fmt.Sprint(b) }) {
				t.Errorf("Parse sources %+v, LoadFile %+v", parsed.Sources, fromFile.Sources)
			}
		}
		if _, err := os.Stat(other.Root); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Parse created %s (%v)", other.Root, err)
		}
	}
}

// TestLoadFile_sourceHoldingTheHome: a source whose folder holds
// NOVA_HOME knows it (Source.NovaHome, which its listing skips); one
// beside it, the home itself or below it does not; config show and its
// JSON never show the field.
func TestLoadFile_sourceHoldingTheHome(t *testing.T) {
	user := t.TempDir()
	home := paths.Home{Root: filepath.Join(user, "memory", "nova")}
	if err := os.MkdirAll(home.Root, 0o700); err != nil {
		t.Fatal(err)
	}
	yaml := `
sources:
  - {name: holds, kind: jsonl, path: "~/memory"}
  - {name: holds-too, kind: markdown, path: "~"}
  - {name: beside, kind: jsonl, path: "~/memory-2"}
  - {name: inside, kind: jsonl, path: "~/memory/nova/exports"}
`
	if err := os.WriteFile(home.Config(), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.LoadFile(home, home.Config(), []string{"HOME=" + user})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{home.Root, home.Root, "", ""} {
		if got := cfg.Sources[i].NovaHome; got != want {
			t.Errorf("source %s: NovaHome %q, want %q", cfg.Sources[i].Name, got, want)
		}
	}
	if b, _ := json.Marshal(cfg.AsMap()); strings.Contains(string(b), "ovaHome") {
		t.Errorf("config show names the loader's field: %s", b)
	}
}

// TestLoadFile_sourceIsTheHome: a source that is NOVA_HOME itself, or a
// folder Nova keeps its own files in, would index the index (history,
// generations' chunks) and, watched, sync again after every sync; the
// listing skips NOVA_HOME only below a source's folder. It is refused. A
// folder of the operator's own inside the home is left alone.
func TestLoadFile_sourceIsTheHome(t *testing.T) {
	user := t.TempDir()
	home := paths.Home{Root: filepath.Join(user, ".nova")}
	if err := os.MkdirAll(home.Root, 0o700); err != nil {
		t.Fatal(err)
	}
	yaml := `
sources:
  - {name: home, kind: jsonl, path: "~/.nova"}
  - {name: index, kind: jsonl, path: "~/.nova/index/"}
  - {name: generation, kind: jsonl, path: "~/.nova/index/generations/x"}
  - {name: logs, kind: markdown, path: "~/.nova/logs"}
  - {name: exports, kind: jsonl, path: "~/.nova/exports"}
`
	if err := os.WriteFile(home.Config(), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := config.LoadFile(home, home.Config(), []string{"HOME=" + user})
	wantFields(t, err, "sources[0].path", "sources[1].path", "sources[2].path", "sources[3].path")
	if err != nil && !strings.Contains(err.Error(), "line 3: sources[0].path: is NOVA_HOME or inside the folders Nova keeps its own files in") {
		t.Errorf("error does not say why: %v", err)
	}
}

// TestLoadFile_sourceLinksToTheHome: a source whose path is a symbolic
// link to NOVA_HOME, or to a folder Nova keeps its own files in, reads
// the index as surely as the home written out does (a link in the way to
// the home, such as macOS's /tmp to /private/tmp, too). It was judged by
// the path as written and passed.
func TestLoadFile_sourceLinksToTheHome(t *testing.T) {
	user := t.TempDir()
	home := paths.Home{Root: filepath.Join(user, ".nova")}
	if err := os.MkdirAll(home.IndexDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"to-home": home.Root, "to-index": home.IndexDir(), "to-user": user} {
		if err := os.Symlink(target, filepath.Join(user, link)); err != nil {
			t.Fatal(err)
		}
	}
	yaml := `
sources:
  - {name: home, kind: jsonl, path: "~/to-home"}
  - {name: index, kind: jsonl, path: "~/to-index"}
  - {name: below, kind: jsonl, path: "~/to-user/.nova/state"}
  - {name: own, kind: jsonl, path: "~/to-home/exports"}
`
	if err := os.WriteFile(home.Config(), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := config.LoadFile(home, home.Config(), []string{"HOME=" + user})
	wantFields(t, err, "sources[0].path", "sources[1].path", "sources[2].path")

	// A source that holds the home through a link knows where, spelled
	// as the listing walks it (the path as written), so it skips it.
	yaml = "sources:\n  - {name: holds, kind: jsonl, path: \"~/to-user\"}\n"
	if err := os.WriteFile(home.Config(), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.LoadFile(home, home.Config(), []string{"HOME=" + user})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.Sources[0].NovaHome, filepath.Join(user, "to-user", ".nova"); got != want {
		t.Errorf("NovaHome %q, want %q", got, want)
	}
}

// TestLoadFile_sourcePathNotExpanded: only ~ and ~/ are expanded in a
// source's path. $HOME/notes or ~bob/notes was taken as a folder of that
// name beside config.yaml, which does not exist, and the source read
// nothing; it is a field error now, unless a file of that very name
// exists.
func TestLoadFile_sourcePathNotExpanded(t *testing.T) {
	for _, p := range []string{"$HOME/notes", "${NOTES}/x", "/data/$USER/notes", "~bob/notes"} {
		t.Run(p, func(t *testing.T) {
			_, err := load(t, fmt.Sprintf("sources:\n  - {name: a, kind: markdown, path: '%s'}\n", p), "HOME=/home/ada")
			wantFields(t, err, "sources[0].path")
			if err == nil || !strings.Contains(err.Error(), "not expanded") {
				t.Errorf("error %v does not say the path is not expanded", err)
			}
		})
	}
	t.Run("a folder of that name", func(t *testing.T) {
		home, path := writeConfig(t, "sources:\n  - {name: a, kind: markdown, path: '$work'}\n")
		if err := os.Mkdir(filepath.Join(home.Root, "$work"), 0o700); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.LoadFile(home, path, nil)
		if err != nil || cfg.Sources[0].Path != filepath.Join(home.Root, "$work") {
			t.Errorf("LoadFile: %v, sources %+v", err, cfg.Sources)
		}
	})
}

// TestLoadFile_errorLines: each error about a key of config.yaml names
// its line, so that the person finds it in a long file; an error about an
// environment variable names none.
// TestLoadFile_errorsNameTheFile: an error about a value of config.yaml
// names the file, as novactl, doctor and novad's log show it, whatever
// NOVA_HOME is; one about a NOVA_* variable names the variable instead.
func TestLoadFile_errorsNameTheFile(t *testing.T) {
	home, path := writeConfig(t, "server:\n  host: 0.0.0.0\n  port: 99999\n")
	_, err := config.LoadFile(home, path, []string{"NOVA_FACADE_PORT=-1", "NOVA_SERVER_PROT=1"})
	got := strings.Split(err.Error(), "\n")
	slices.Sort(got)
	want := []string{
		`NOVA_FACADE_PORT (facade.port): must be a TCP port 0-65535 (got "-1")`,
		`NOVA_SERVER_PROT: unknown environment variable: no such configuration key`,
		path + `: line 2: server.host: must be localhost or a numeric loopback address (got "0.0.0.0"): non-loopback serving is refused (rag-server-non-loopback)`,
		path + `: line 3: server.port: must be a TCP port 0-65535 (got "99999")`,
	}
	if slices.Sort(want); !slices.Equal(got, want) {
		t.Errorf("error:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
	files := map[string]string{}
	for _, p := range config.Problems(err) {
		files[p.Field] = p.File
	}
	if w := map[string]string{"facade.port": "", "NOVA_SERVER_PROT": "", "server.host": path, "server.port": path}; !maps.Equal(files, w) {
		t.Errorf("Problems' files %v, want %v", files, w)
	}
	// A value the file does not hold, judged against one it does: the
	// error is about the key the file holds, on its line. It was about
	// facade.port, which the file does not name, on no line.
	_, err = load(t, "server: {port: 3036}\n")
	if err == nil || !strings.HasSuffix(err.Error(), `config.yaml: line 1: server.port: must differ from facade.port, whose default is 3036: give one of them another port (got "3036")`) {
		t.Errorf("error %v, want it to name the file, the line and the key written", err)
	}
	_, err = load(t, "", "NOVA_SERVER_PORT=3036")
	wantFields(t, err, "server.port")
	if err != nil && !strings.Contains(err.Error(), "NOVA_SERVER_PORT (server.port)") {
		t.Errorf("error %v, want it to name the variable", err)
	}
}

func TestLoadFile_errorLines(t *testing.T) {
	yaml := `# Nova
server:
  host: 0.0.0.0
  port: 99999
  bogus: 1
retrieval:
  topK: many
sources:
  - {name: a, kind: jsonl, path: /a}
  - name: b
    kind: pdf
    path: /b
    tag: x
`
	_, err := load(t, yaml, "NOVA_FACADE_PORT=-1")
	want := map[string]int{
		"server.host": 3, "server.port": 4, "server.bogus": 5, "retrieval.topK": 7, "sources[1].kind": 11, "sources[1].tag": 13, "facade.port": 0,
	}
	got := map[string]int{}
	for _, p := range config.Problems(err) {
		got[p.Field] = p.Line
	}
	if !maps.Equal(got, want) {
		t.Errorf("lines %v, want %v\n%v", got, want, err)
	}
	for _, line := range []string{"line 3: server.host: must be localhost", "line 5: server.bogus: unknown key", `line 11: sources[1].kind: must be one of`, "NOVA_FACADE_PORT (facade.port): must be"} {
		if !strings.Contains(err.Error(), line) {
			t.Errorf("error does not say %q:\n%v", line, err)
		}
	}
}

// TestLoadFile_sameFilesTwice: two sources of one kind that name the same
// path (spelled alike or not, or through a link) with the same globs read
// the same files, so
// every memory in them was indexed, and found, twice; that is an error
// naming the second. Other globs, another kind, or a folder inside
// another's are left alone: they can be meant.
func TestLoadFile_sameFilesTwice(t *testing.T) {
	home := paths.Home{Root: t.TempDir()}
	user := t.TempDir()
	// A link to a folder (notes kept on another disk, or in a synced
	// folder) reads the files of the folder.
	if err := os.Mkdir(filepath.Join(user, "real"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(user, "real"), filepath.Join(user, "link")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, sources string
		want          []string
	}{
		{"same path", "- {name: a, kind: markdown, path: /n}\n- {name: b, kind: markdown, path: /n/}", []string{"sources[1].path"}},
		{"same folder through a link", "- {name: a, kind: markdown, path: ~/real}\n- {name: b, kind: markdown, path: ~/link}", []string{"sources[1].path"}},
		{"same path through ~", "- {name: a, kind: markdown, path: " + user + "/n}\n- {name: b, kind: markdown, path: ~/n}", []string{"sources[1].path"}},
		{"same globs", "- {name: a, kind: markdown, path: /n, include: ['*.md']}\n- {name: b, kind: markdown, path: /n, include: ['*.md']}", []string{"sources[1].path"}},
		{"other globs", "- {name: a, kind: markdown, path: /n, include: [work/**]}\n- {name: b, kind: markdown, path: /n, exclude: [work/**]}", nil},
		{"other kind", "- {name: a, kind: markdown, path: /n}\n- {name: b, kind: jsonl, path: /n}", nil},
		{"folder inside", "- {name: a, kind: markdown, path: /n}\n- {name: b, kind: markdown, path: /n/daily}", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse(home, home.Config(), []byte("sources:\n  "+strings.ReplaceAll(tt.sources, "\n", "\n  ")+"\n"), []string{"HOME=" + user})
			if tt.want == nil {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			wantFields(t, err, tt.want...)
			if tt.want != nil && (err == nil || !strings.Contains(err.Error(), `the same files as sources[0] ("a")`)) {
				t.Errorf("error %v does not name the other source", err)
			}
		})
	}
}

// TestLoadFile_oneDocument: YAML reads only the first document of a file;
// the settings after a "---" line (two files pasted together, a stray
// separator) were dropped without a word. Such a file is refused, naming
// the line. A "---" that opens the file, or ends it, starts no second
// document of settings and is fine.
func TestLoadFile_oneDocument(t *testing.T) {
	for _, yaml := range []string{"server: {port: 4000}\n---\nfacade: {port: 5}\n", "---\nserver: {port: 4000}\n---\nfacade: {port: 5}\n"} {
		home, path := writeConfig(t, yaml)
		_, err := config.LoadFile(home, path, nil)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "second YAML document") || !strings.Contains(err.Error(), "line ") {
			t.Errorf("%q: error %v, want one naming the second document and its line", yaml, err)
		}
	}
	for _, yaml := range []string{"---\nserver: {port: 4000}\n", "# Nova\n---\nserver: {port: 4000}\n", "server: {port: 4000}\n---\n", "server: {port: 4000}\n...\n"} {
		if cfg, err := load(t, yaml); err != nil || cfg.Server.Port != 4000 {
			t.Errorf("%q: %v, port %d", yaml, err, cfg.Server.Port)
		}
	}
}

// TestLoadFile_UTF16: a config.yaml saved as UTF-16 (an editor's
// "Unicode" encoding) is refused saying so, not with the YAML parser's
// "cannot unmarshal !!str" about its first two letters.
func TestLoadFile_UTF16(t *testing.T) {
	for name, data := range map[string][]byte{
		"little-endian": append([]byte{0xff, 0xfe}, 's', 0, 'e', 0, 'r', 0),
		"big-endian":    append([]byte{0xfe, 0xff}, 0, 's', 0, 'e', 0, 'r'),
	} {
		t.Run(name, func(t *testing.T) {
			home, path := writeConfig(t, string(data))
			_, err := config.LoadFile(home, path, nil)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "UTF-16") || strings.Contains(err.Error(), "unmarshal") {
				t.Errorf("error %v, want one saying %s is UTF-16", err, path)
			}
		})
	}
}

// TestLoadFile_pathTildeAlone: YAML reads ~ alone as null, so
// "path: ~" (a source of the whole home) was "is required", which said
// nothing of why; the error says how to write it.
func TestLoadFile_pathTildeAlone(t *testing.T) {
	_, err := load(t, "sources:\n  - {name: a, kind: codex, path: ~}\n")
	wantFields(t, err, "sources[0].path")
	if !strings.Contains(err.Error(), `"~" in quotes`) {
		t.Errorf("error %v does not say to quote ~", err)
	}
}

// TestLoadFile_tildeWithoutHome: with no home folder known (HOME unset, as
// in a system service given only NOVA_HOME), ~/notes was joined to
// nothing and became notes beside config.yaml, and "~" an empty path
// reported as YAML's null. It is an error naming HOME.
func TestLoadFile_tildeWithoutHome(t *testing.T) {
	t.Setenv("HOME", "") // os.UserHomeDir, the fallback, finds none either
	for _, p := range []string{`"~/notes"`, `"~"`} {
		_, err := load(t, "sources:\n  - {name: a, kind: markdown, path: "+p+"}\n")
		wantFields(t, err, "sources[0].path")
		if err != nil && !strings.Contains(err.Error(), "sources[0].path: ~ cannot be expanded: HOME is not set; write the absolute path") {
			t.Errorf("%s: error %v does not say why", p, err)
		}
	}
}

// TestLoadFile_notUTF8: a config.yaml with bytes that are not UTF-8 (a
// name with an accent saved as Latin-1 or Windows-1252) is refused naming
// the line and the encoding to save it in. The parser said only "yaml:
// invalid trailing UTF-8 octet", with no line.
func TestLoadFile_notUTF8(t *testing.T) {
	for name, yaml := range map[string]string{
		"value":   "server:\n  port: 4000\nsources:\n  - name: caf\xe9\n    kind: markdown\n    path: /x\n",
		"comment": "# a\n# b\n# c\n# caf\xe9\nserver:\n  port: 4000\n",
		"leading": "server:\n  port: 4000\n\n\xff\n",
	} {
		t.Run(name, func(t *testing.T) {
			home, path := writeConfig(t, yaml)
			_, err := config.LoadFile(home, path, nil)
			if err == nil || !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), path+": line 4") || !strings.Contains(err.Error(), "save it as UTF-8") {
				t.Errorf("error %v, want ErrInvalid naming %s, line 4, and how to save it", err, path)
			}
		})
	}
}

// TestLoadFile_parserErrorLine: the YAML parser numbers the line of its
// own errors ("did not find expected key") from 0, one less than its
// scanner's and an editor's: "bind: [::1]" on line 2, unquoted, was
// reported on line 1, "server:". The error names the line an editor
// shows.
func TestLoadFile_parserErrorLine(t *testing.T) {
	for yaml, want := range map[string]string{
		"server:\n  bind: [::1]\n":                        "line 2: did not find expected node content",
		"a: 1\nb: 2\nserver:\n  port: 1\n host: x\n":      "line 5: did not find expected key",
		"# c\n\nserver: {host: x\n":                       "line 3: did not find expected ',' or '}'",
		"sources:\n  - {name: a}\n  name: b\n":            "line 2: did not find expected '-' indicator",
		"server:\n  port: 1\nsources: [{name: a, kind:]}": "line 3: did not find expected ',' or '}'",
		"server:\n  host: ::\n":                           "line 2: mapping values are not allowed in this context", // the scanner's, right already
	} {
		home, path := writeConfig(t, yaml)
		_, err := config.LoadFile(home, path, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to say %q", yaml, err, want)
		}
	}
}

// TestLoadFile_leadingZeros: an integer written as text with a leading
// zero (NOVA_SERVER_PORT=03037, port: "08080") is the decimal number it
// was checked as. The decoder read it as octal: 03037 served on port
// 1567, and 08080 was "must be an integer", blamed on config.yaml.
func TestLoadFile_leadingZeros(t *testing.T) {
	cfg := mustLoad(t, "", "NOVA_SERVER_PORT=03037", "NOVA_RETRIEVAL_TOP_K=09")
	if cfg.Server.Port != 3037 || cfg.Retrieval.TopK != 9 {
		t.Errorf("server.port %d, retrieval.topK %d; want 3037 and 9", cfg.Server.Port, cfg.Retrieval.TopK)
	}
	cfg = mustLoad(t, "server:\n  port: \"08080\"\n")
	if cfg.Server.Port != 8080 {
		t.Errorf("server.port %d, want 8080", cfg.Server.Port)
	}
}

// TestLoadFile_octalInYAML: YAML reads an integer with a leading 0 as
// octal (port: 03037 is 1567), which no one writing a port or a count
// means: it is an error naming the line and the number to write. 0o17
// and a quoted "03037" say what they are and are left alone.
func TestLoadFile_octalInYAML(t *testing.T) {
	_, err := load(t, "server:\n  port: 03037\nsources:\n  - {name: a, kind: jsonl, path: /a, authorityRank: 010}\n")
	wantFields(t, err, "server.port", "sources[0].authorityRank")
	if want := `line 2: server.port: a leading 0 makes YAML read 03037 as an octal number, 1567: write 3037 (got "03037")`; err != nil && !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to say %q", err, want)
	}
	// Text (a tag, a project) is quoted to keep its zeros.
	_, err = load(t, "sources:\n  - {name: a, kind: jsonl, path: /a, tags: [ok, 010]}\n")
	wantFields(t, err, "sources[0].tags[1]")
	if want := `sources[0].tags[1]: a leading 0 makes YAML read 010 as an octal number, 8: write it in quotes, "010", to keep it as written (got "010")`; err != nil && !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to say %q", err, want)
	}
	cfg := mustLoad(t, "server:\n  port: 0o7777\nfacade:\n  port: \"03036\"\nindex:\n  contextTurns: 0\n  contextWords: 08\n")
	if cfg.Server.Port != 0o7777 || cfg.Facade.Port != 3036 || cfg.Index.ContextWords != 8 {
		t.Errorf("ports %d and %d, contextWords %d", cfg.Server.Port, cfg.Facade.Port, cfg.Index.ContextWords)
	}
}

// TestLoadFile_tooLarge: a config.yaml far larger than any configuration
// (a log or a database linked there by mistake) is refused by its size,
// before it is read into memory and parsed; a file of 11 MB took novactl
// config check 17 seconds, and novad read any size whole.
func TestLoadFile_tooLarge(t *testing.T) {
	big := "server:\n  port: 4000\n" + strings.Repeat("# "+strings.Repeat("x", 98)+"\n", config.MaxFileSize/100+1)
	home, path := writeConfig(t, big)
	_, err := config.LoadFile(home, path, nil)
	if err == nil || !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "at most") {
		t.Errorf("error %v, want ErrInvalid naming %s and the limit", err, path)
	}
}

// TestLoadFile_emptyEnvironmentValue: a NOVA_* variable set to nothing
// (NOVA_SERVER_PORT= in a service file) where a number or a bool belongs
// says it is empty and that unsetting it restores the default; it said
// "must be an integer", without the value, which looked like nothing.
func TestLoadFile_emptyEnvironmentValue(t *testing.T) {
	_, err := load(t, "", "NOVA_SERVER_PORT=", "NOVA_EMBEDDING_ALLOW_REMOTE_ENDPOINT=")
	wantFields(t, err, "server.port", "embedding.allowRemoteEndpoint")
	for _, want := range []string{
		"NOVA_SERVER_PORT (server.port): is empty: unset it to use the default (3037), or give it a value",
		"NOVA_EMBEDDING_ALLOW_REMOTE_ENDPOINT (embedding.allowRemoteEndpoint): is empty: unset it to use the default (false), or give it a value",
	} {
		if err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to say %q", err, want)
		}
	}
}

// TestLoadFile_duplicateKeys: a key written twice in one section is an
// error about that field, on its line, naming the line of the first;
// every one is listed. It was the parser's "yaml: unmarshal errors:" with
// the lines below it, which doctor, showing an error's first line,
// showed alone, and config check --json as one problem with no field.
func TestLoadFile_duplicateKeys(t *testing.T) {
	_, err := load(t, "server:\n  port: 41000\n  port: 41001\nsources:\n  - {name: a, kind: jsonl, path: /a, name: b}\n")
	wantFields(t, err, "server.port", "sources[0].name")
	for _, want := range []string{
		"line 3: server.port: is written twice, first on line 2: remove one",
		"line 5: sources[0].name: is written twice, first on line 5: remove one",
	} {
		if err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to say %q", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), "\n ") {
		t.Errorf("error %q has an indented line: one error a line", err)
	}
}

// TestLoadFile_bracketedHostUnquoted: host: [::1], as a URL writes the
// address, is a YAML list to the parser, which said only "did not find
// expected node content"; the error says to quote it.
func TestLoadFile_bracketedHostUnquoted(t *testing.T) {
	_, err := load(t, "server:\n  port: 4000\n  host: [::1]\n")
	if want := `line 3: server.host: an address in brackets is a YAML list here: write it in quotes, host: "::1"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to say %q", err, want)
	}
	mustLoad(t, "server:\n  host: \"[::1]\"\n")
}

// TestLoadFile_listOfSectionsNotShownAsGo: a list written where a section
// belongs (server: with "- port: 4000" under it) is named without Go's
// rendering of it, "[map[port:4000]]", which is no YAML the person wrote.
func TestLoadFile_listOfSectionsNotShownAsGo(t *testing.T) {
	for _, yaml := range []string{"server:\n  - port: 4000\n", "sources:\n  - [a, b]\n", "retrieval:\n  topK: [{a: 1}]\n"} {
		_, err := load(t, yaml)
		if err == nil || strings.Contains(err.Error(), "map[") || strings.Contains(err.Error(), "[[") {
			t.Errorf("%q: error %v, want one without Go's rendering of the value", yaml, err)
		}
	}
}

// TestLoadFile_unknownAnchor: an alias to an anchor not defined before
// it (*base, with &base below it or misspelt) names its line; the parser
// said "unknown anchor 'base' referenced", on no line.
func TestLoadFile_unknownAnchor(t *testing.T) {
	_, err := load(t, "sources:\n  - {name: a, kind: jsonl, path: /a}\n  - <<: *base\n    name: b\n")
	if want := "yaml: line 3: unknown anchor 'base' referenced"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to say %q", err, want)
	}
}
