// Package config loads Nova's operator settings: defaults, then
// NOVA_HOME/config.yaml, then NOVA_* environment variables, through koanf.
// Loading fails fast: an unknown key or an invalid value is an error that
// names the field. The result is an immutable value; no koanf instance
// outlives Load.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/v2"
	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/nova-recall/nova/paths"
)

// Config is the whole operator configuration. Treat it as read-only.
type Config struct {
	Server    Server    `koanf:"server"`
	Facade    Facade    `koanf:"facade"`
	Embedding Embedding `koanf:"embedding"`
	Retrieval Retrieval `koanf:"retrieval"`
	Index     Index     `koanf:"index"`
	Sources   []Source  `koanf:"sources"`

	// Home is the runtime home the config was loaded for (not a key).
	Home paths.Home `koanf:"-"`
	// File is the config file that was read, or "" when none exists.
	File string `koanf:"-"`
}

// Server configures the direct server listener.
type Server struct {
	// Host must be a loopback address: localhost, 127.0.0.0/8 or ::1.
	Host string `koanf:"host"`
	// Port of the direct server; default 3037. 0 picks a free port.
	Port int `koanf:"port"`
}

// Facade configures the external-agent listener. It binds the same host as
// the direct server.
type Facade struct {
	// Port of the facade; default 3036. 0 picks a free port.
	Port int `koanf:"port"`
}

// Embedding selects the embedder. Vectors of one profile
// (provider, model, dimension) are never compared with another's.
type Embedding struct {
	// Provider is "builtin" (pure Go, corpus-trained, the default) or
	// "openai" (any OpenAI-compatible /v1/embeddings endpoint).
	Provider string `koanf:"provider"`
	// Endpoint is the base URL of an openai provider, e.g.
	// http://127.0.0.1:11434/v1 for Ollama.
	Endpoint string `koanf:"endpoint"`
	// Model is the openai model name; ignored by builtin.
	Model string `koanf:"model"`
	// Dimension of the vectors; default 384.
	Dimension int `koanf:"dimension"`
	// AllowRemoteEndpoint permits a non-loopback openai endpoint. Off by
	// default: memory text must not leave the machine unless the operator
	// says so.
	AllowRemoteEndpoint bool `koanf:"allowRemoteEndpoint"`
	// APIKeyEnv names the environment variable holding the openai API key,
	// if the endpoint needs one. The key itself is never in this file.
	APIKeyEnv string `koanf:"apiKeyEnv"`
	// BatchSize is the number of texts per embedding request; default 64.
	BatchSize int `koanf:"batchSize"`
	// TimeoutSeconds bounds one embedding request; default 30.
	TimeoutSeconds int `koanf:"timeoutSeconds"`
}

// Retrieval tunes search.
type Retrieval struct {
	// TopK is the default number of results; 1-20, default 8.
	TopK int `koanf:"topK"`
	// LatencyBudgetSeconds is the per-search budget; 1-120, default 60.
	// The server caps it at 60.
	LatencyBudgetSeconds int `koanf:"latencyBudgetSeconds"`
	// MaxConcurrentSearches is the number of searches that run at once;
	// more answer 429. Default 2.
	MaxConcurrentSearches int `koanf:"maxConcurrentSearches"`
	// RecencyHalfLifeDays is the half-life of the recency boost; default 7.
	RecencyHalfLifeDays float64 `koanf:"recencyHalfLifeDays"`
	// DenseChannel turns the dense channel on or off ("on", "off");
	// default on. Off leaves lexical BM25 with the evidence layer.
	DenseChannel string `koanf:"denseChannel"`
}

// Index tunes builds.
type Index struct {
	// KeepGenerations is how many promoted generations retention keeps
	// (so rollback has somewhere to go); default 3, minimum 2.
	KeepGenerations int `koanf:"keepGenerations"`
	// ChunkMaxChars caps the size of one chunk; default 1600.
	ChunkMaxChars int `koanf:"chunkMaxChars"`
	// ChunkOverlapChars is the overlap between consecutive pieces of a
	// long text; default 200.
	ChunkOverlapChars int `koanf:"chunkOverlapChars"`
	// ANNMinChunks is the generation size from which a build tries the
	// approximate vector index (github.com/coder/hnsw). It is used only if
	// its recall@10 against exact search, measured at build time, is at
	// least 0.95; otherwise search stays exact. Default 200000; 0 never
	// tries.
	ANNMinChunks int `koanf:"annMinChunks"`
	// ContextWords is how many words of each neighbouring record in the
	// same conversation are indexed with a record (not shown); default 30,
	// 0 turns it off.
	ContextWords int `koanf:"contextWords"`
	// ContextTurns is how many records before and after a record in its
	// conversation lend it their first contextWords words; default 2
	// (measured on LoCoMo: BENCHMARKS.md), 0 turns it off.
	ContextTurns int `koanf:"contextTurns"`
}

// Source is one place memories come from.
type Source struct {
	// Name identifies the source; unique.
	Name string `koanf:"name"`
	// Kind is one of Kinds: jsonl, markdown, codex, claude-code, openclaw,
	// hermes, gemini or aider.
	Kind string `koanf:"kind"`
	// Path is a file or directory. ~ and ~/ are expanded to the user's
	// home; a relative path is relative to the config file's folder.
	// Environment variables ($HOME) are not expanded.
	Path string `koanf:"path"`
	// SourceSet is the governance class (e.g. external-content, lessons,
	// task-board-snapshot, filtered-dialogue-daily).
	SourceSet string `koanf:"sourceSet"`
	// Defaults applied to records that do not carry their own. Agent
	// also replaces the kind as the agent of an agent's sessions and
	// notes (codex, claude-code, openclaw, hermes, gemini, aider).
	Project   string   `koanf:"project"`
	Agent     string   `koanf:"agent"`
	Tags      []string `koanf:"tags"`
	Lifecycle string   `koanf:"lifecycle"`
	WorkType  string   `koanf:"workType"`
	// AuthorityRank and RetrievalWeight override the source set's
	// governance (0 keeps the source set's value).
	AuthorityRank   int     `koanf:"authorityRank"`
	RetrievalWeight float64 `koanf:"retrievalWeight"`
	// Include and Exclude are globs (github.com/bmatcuk/doublestar/v4
	// syntax) matched against the slash-separated path relative to Path:
	// "**" spans any number of folders; a glob without "/" also matches
	// the base name at any depth.
	Include []string `koanf:"include"`
	Exclude []string `koanf:"exclude"`
	// NovaHome is NOVA_HOME when it lies inside Path, set by the loader,
	// never read from the file: the listing never enters it. Its files are
	// the index's own (history.jsonl, backups of skill files), and a
	// watched source holding them would sync again after every sync.
	NovaHome string `koanf:"-"`
}

// Source kinds.
const (
	KindJSONL      = "jsonl"
	KindMarkdown   = "markdown"
	KindCodex      = "codex"
	KindClaudeCode = "claude-code"
	KindOpenClaw   = "openclaw"
	// KindHermes reads a Hermes agent home (NousResearch hermes-agent,
	// ~/.hermes): its SQLite conversation store state.db and its memory
	// files.
	KindHermes = "hermes"
	// KindGemini reads a Gemini CLI home (~/.gemini): the chat recordings
	// of every project under tmp/<project>/chats.
	KindGemini = "gemini"
	// KindAider reads Aider's chat histories: every
	// .aider.chat.history.md under a folder of repositories (~/src), or
	// the one history file the path names.
	KindAider = "aider"
)

// Kinds lists the supported source kinds.
var Kinds = []string{KindJSONL, KindMarkdown, KindCodex, KindClaudeCode, KindOpenClaw, KindHermes, KindGemini, KindAider}

// Embedding providers.
const (
	ProviderBuiltin = "builtin"
	ProviderOpenAI  = "openai"
)

// Defaults returns the configuration used when nothing is set.
func Defaults() Config {
	return Config{
		Server:    Server{Host: "127.0.0.1", Port: 3037},
		Facade:    Facade{Port: 3036},
		Embedding: Embedding{Provider: ProviderBuiltin, Dimension: 384, BatchSize: 64, TimeoutSeconds: 30},
		Retrieval: Retrieval{TopK: 8, LatencyBudgetSeconds: 60, MaxConcurrentSearches: 2, RecencyHalfLifeDays: 7, DenseChannel: "on"},
		Index:     Index{KeepGenerations: 3, ChunkMaxChars: 1600, ChunkOverlapChars: 200, ContextWords: 30, ContextTurns: 2, ANNMinChunks: 200_000},
	}
}

// ErrInvalid is wrapped by every validation error.
var ErrInvalid = errors.New("invalid configuration")

// FieldError is a configuration error addressed to one field.
type FieldError struct {
	// Field is the dotted key, e.g. "server.host" or "sources[1].kind".
	Field string
	// Env is the environment variable the value came from, if it did
	// (e.g. NOVA_RETRIEVAL_TOP_K).
	Env string
	// Value is the offending value, formatted.
	Value string
	// Reason says what is wrong and what is accepted.
	Reason string
	// Line is the line of config.yaml the field is on, or 0 (set by an
	// environment variable, or not found in the file).
	Line int
	// File is the config file the value is from, or would be written in
	// (a default judged against a value of the file); "" for a value of
	// an environment variable, or when there is no file.
	File string
}

func (e *FieldError) Error() string {
	return where(e.File, e.Line, e.Env, e.Field) + ": " + e.message()
}

// where is the start of an error about field: "PATH: line N: field", or
// "ENV (field)" when the value came from the variable env, or "ENV" when
// the variable is the field (one that sets no key).
func where(file string, line int, env, field string) string {
	switch {
	case env != "" && env == field:
		return env
	case env != "":
		return env + " (" + field + ")"
	}
	if line > 0 {
		field = fmt.Sprintf("line %d: %s", line, field)
	}
	if file != "" {
		field = file + ": " + field
	}
	return field
}

// message is the error without the field: the reason and the value.
func (e *FieldError) message() string {
	if e.Value != "" {
		return fmt.Sprintf("%s (got %q)", e.Reason, e.Value)
	}
	return e.Reason
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *FieldError) Unwrap() error { return ErrInvalid }

// NonLoopbackError is returned when server.host is not loopback. It is
// distinct so that novad and doctor can report rag-server-non-loopback.
type NonLoopbackError struct {
	Host string
	// Env is the environment variable the host came from, if it did.
	Env string
	// Line is the line of config.yaml server.host is on, or 0.
	Line int
	// File is the config file the host is from, as in FieldError.
	File string
}

func (e *NonLoopbackError) Error() string {
	return where(e.File, e.Line, e.Env, "server.host") + ": " + e.message()
}

// message is the error without the field.
func (e *NonLoopbackError) message() string {
	return fmt.Sprintf("must be localhost or a numeric loopback address (got %q): non-loopback serving is refused (rag-server-non-loopback)", e.Host)
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *NonLoopbackError) Unwrap() error { return ErrInvalid }

// Load reads the configuration for the runtime home named by environ.
func Load(environ []string) (Config, error) {
	home, err := paths.Resolve(environ)
	if err != nil {
		return Config{}, err
	}
	return LoadFile(home, home.Config(), environ)
}

// LoadFile reads the configuration from path (missing is fine: defaults
// apply, but not a link to a missing file) with environment overrides
// from environ.
func LoadFile(home paths.Home, path string, environ []string) (Config, error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return Config{}, fmt.Errorf("%s is a folder, not a config file", path)
	case err == nil:
		if err := checkWriters(path, fi); err != nil {
			return Config{}, err
		}
		// Read once: the errors' lines are looked up in what was
		// loaded, not in a file that may have changed since.
		data, err := os.ReadFile(path)
		if err != nil {
			return Config{}, fmt.Errorf("read %s: %w", path, err)
		}
		return load(home, path, data, true, environ)
	case errors.Is(err, syscall.ENOTDIR):
		// NOVA_HOME (or a folder above it) is a file: say which, not
		// "stat .../config.yaml: not a directory".
		return Config{}, fmt.Errorf("read %s: %s", path, notAFolder(filepath.Dir(path)))
	case !errors.Is(err, os.ErrNotExist):
		return Config{}, fmt.Errorf("read %s: %w", path, err)
	}
	if target, err := os.Readlink(path); err == nil {
		// A link to a file that is gone (a dotfiles repository moved)
		// means a config was meant: the defaults would serve no source.
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		return Config{}, fmt.Errorf("read %s: it is a link to %s, which does not exist", path, target)
	}
	return load(home, path, nil, false, environ)
}

// notAFolder names the nearest part of dir that is a file.
func notAFolder(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && !fi.IsDir() {
			return d + " is a file, not a folder"
		}
		if filepath.Dir(d) == d {
			return dir + " is not a folder"
		}
	}
}

// checkWriters refuses a config file that another local user owns or can
// write (as ssh refuses such a config): it says what is read into memory
// (sources) and where memory's text is sent to be embedded
// (embedding.endpoint), so whoever can change it can send the memory
// anywhere. A link is judged by the file it points to (a config kept in
// a dotfiles repository). Group write is left alone: on systems that give
// each user a group of their own, umask 002 makes every file so.
func checkWriters(path string, fi fs.FileInfo) error {
	switch {
	case paths.OwnedByAnotherUser(fi):
		return fmt.Errorf("%w: %s is owned by another user, who could send your memory anywhere by editing it; write your own (novactl config init)", ErrInvalid, path)
	case fi.Mode().Perm()&0o002 != 0:
		return fmt.Errorf("%w: %s can be written by any user of this machine (mode %04o), who could send your memory anywhere by editing it; check it, then chmod o-w %s", ErrInvalid, path, fi.Mode().Perm(), path)
	}
	return nil
}

// Parse reads the configuration that data would be as the file at path
// (which need not exist yet), with environment overrides from environ:
// the check of a config.yaml before it is written.
func Parse(home paths.Home, path string, data []byte, environ []string) (Config, error) {
	return load(home, path, data, true, environ)
}

// rawBytes is a koanf provider of a file's content held in memory.
type rawBytes []byte

func (b rawBytes) ReadBytes() ([]byte, error) { return b, nil }

func (rawBytes) Read() (map[string]any, error) {
	return nil, errors.New("rawBytes needs a parser")
}

// load reads defaults, then data as the YAML file at path (when hasFile;
// there may be no file), then environ.
func load(home paths.Home, path string, data []byte, hasFile bool, environ []string) (Config, error) {
	k := koanf.New(".")
	if err := k.Load(confmap.Provider(defaultMap(), "."), nil); err != nil {
		return Config{}, fmt.Errorf("load defaults: %w", err)
	}
	cfg := Config{Home: home}
	if hasFile {
		if bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff}) {
			// The parser would report its first letters as a bad value.
			return Config{}, fmt.Errorf("%w: %s is saved as UTF-16; save it as UTF-8", ErrInvalid, path)
		}
		if err := k.Load(rawBytes(data), yaml.Parser()); err != nil {
			if line := tabIndented(data); line > 0 {
				// The parser's message names no tab, or the line
				// before it.
				return Config{}, fmt.Errorf("read %s: %w (line %d starts with a tab: YAML indents with spaces only, even on a blank line)", path, err, line)
			}
			if line, what := notSettings(data); line > 0 {
				return Config{}, fmt.Errorf("%w: %s: line %d: the file holds %s", ErrInvalid, path, line, what)
			}
			return Config{}, fmt.Errorf("read %s: %w", path, err)
		}
		if line := secondDocument(data); line > 0 {
			return Config{}, fmt.Errorf("%w: %s: line %d starts a second YAML document, after a --- line; only the first is read, so its settings would be dropped: remove the --- line between them", ErrInvalid, path, line)
		}
		cfg.File = path
	}
	// Every problem is collected and reported together: an unknown key
	// does not hide a bad value, nor a bad value an invalid one.
	var errs []error
	fromEnv := map[string]string{}
	envProvider := env.Provider(".", env.Opt{
		Prefix:      "NOVA_",
		EnvironFunc: func() []string { return environ },
		TransformFunc: func(key, value string) (string, any) {
			mapped, err := envKey(key)
			if err != nil {
				errs = append(errs, err)
				return "", nil
			}
			if other := fromEnv[mapped]; other != "" && other != key {
				// The key is spelled both ways (TOP_K and TOPK);
				// which one won would depend on their order.
				errs = append(errs, &FieldError{Field: mapped, Env: key, Reason: "is set by " + other + " too: unset one of them"})
				return "", nil
			}
			if mapped != "" {
				fromEnv[mapped] = key
			}
			return mapped, value
		},
	})
	if err := k.Load(envProvider, nil); err != nil {
		return Config{}, fmt.Errorf("read environment: %w", err)
	}
	dotted := map[string]bool{}
	for _, e := range dottedKeys(data) {
		dotted[e.Field] = true
		errs = append(errs, e)
	}
	misshapen, keyErrs := checkKeys(k, dotted)
	if keyErrs != nil {
		errs = append(errs, keyErrs)
	}
	for _, key := range misshapen {
		k.Delete(key)
	}
	structural := len(misshapen) > 0
	errs = append(errs, checkTypes(k, fromEnv)...)
	err := k.UnmarshalWithConf("", &cfg, koanf.UnmarshalConf{
		Tag: "koanf",
		DecoderConfig: &mapstructure.DecoderConfig{
			DecodeHook: mapstructure.ComposeDecodeHookFunc(
				mapstructure.StringToTimeDurationHookFunc(),
				splitList,
				boolAsText,
				mapstructure.TextUnmarshallerHookFunc()),
			Metadata:         nil,
			Result:           &cfg,
			WeaklyTypedInput: true,
			// Unknown keys are already reported, by name, above.
			ErrorUnused: keyErrs == nil && len(dotted) == 0,
			TagName:     "koanf",
		},
	})
	if err != nil {
		errs = append(errs, decodeErrors(err)...)
		// What was decoded is partial: its fields would be reported again.
		structural = true
	}
	cfg.Home = home
	if hasFile {
		cfg.File = path
	}
	for i := range cfg.Sources {
		raw := cfg.Sources[i].Path
		if (raw == "~" || strings.HasPrefix(raw, "~/")) && paths.UserHome(environ) == "" {
			// Expanded to nothing, ~/notes would be notes beside
			// config.yaml.
			errs = append(errs, &FieldError{Field: fmt.Sprintf("sources[%d].path", i), Value: raw, Reason: "~ cannot be expanded: HOME is not set; write the absolute path"})
			continue
		}
		cfg.Sources[i].Path = paths.ExpandHome(cfg.Sources[i].Path, environ)
		if cfg.Sources[i].Path != "" && !filepath.IsAbs(cfg.Sources[i].Path) {
			// Relative source paths are relative to the config file, so a
			// config that ships with sample data works from anywhere.
			cfg.Sources[i].Path = filepath.Join(filepath.Dir(path), cfg.Sources[i].Path)
		}
		if reason := notExpanded(raw); reason != "" {
			if _, err := os.Lstat(cfg.Sources[i].Path); err != nil {
				errs = append(errs, &FieldError{Field: fmt.Sprintf("sources[%d].path", i), Value: raw, Reason: reason})
			}
		}
		if src := cfg.Sources[i].Path; src != "" && home.Root != "" {
			if rel, err := filepath.Rel(src, home.Root); err == nil && rel != "." && filepath.IsLocal(rel) {
				cfg.Sources[i].NovaHome = filepath.Clean(home.Root)
			}
			if ownFolder(home, src) {
				errs = append(errs, &FieldError{Field: fmt.Sprintf("sources[%d].path", i), Value: raw,
					Reason: fmt.Sprintf("is NOVA_HOME or inside the folders Nova keeps its own files in (%s: index, state, cache, logs), so the index would read itself: keep the memory in a folder of its own", home.Root)})
			}
		}
	}
	if !structural {
		if err := cfg.validate(fromEnv); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		if hasFile {
			setLines(path, data, err)
		}
		return Config{}, err
	}
	return cfg, nil
}

// tabIndented returns the first line of data whose indentation holds a
// tab, or 0. A blank line or a comment counts: the parser refuses those
// too, and a blank line's tab cannot be seen.
func tabIndented(data []byte) int {
	for i, line := range bytes.Split(data, []byte("\n")) {
		indent := line[:len(line)-len(bytes.TrimLeft(line, " \t\r"))]
		if bytes.IndexByte(indent, '\t') >= 0 {
			return i + 1
		}
	}
	return 0
}

// notSettings returns the line of the top of the YAML file data, and what
// it holds, when it parses but is not a mapping of keys, else 0: the
// parser says "cannot unmarshal !!seq into map[string]interface {}".
func notSettings(data []byte) (line int, what string) {
	var doc yamlv3.Node
	if yamlv3.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return 0, ""
	}
	switch top := doc.Content[0]; top.Kind {
	case yamlv3.SequenceNode:
		return top.Line, "a list, not settings (keys such as server: and sources:, at the start of a line); a list of sources goes under sources:"
	case yamlv3.ScalarNode:
		return top.Line, "a single value, not settings (keys such as server: and sources:, at the start of a line)"
	}
	return 0, ""
}

// ownFolder reports whether the source folder src is home's root or lies
// in one of the folders Nova writes its own files to. The listing leaves
// out NOVA_HOME only below a source's folder, never the folder itself.
func ownFolder(home paths.Home, src string) bool {
	if filepath.Clean(src) == filepath.Clean(home.Root) {
		return true
	}
	for _, own := range []string{home.IndexDir(), home.StateDir(), home.CacheDir(), home.LogsDir()} {
		if rel, err := filepath.Rel(own, src); err == nil && filepath.IsLocal(rel) {
			return true
		}
	}
	return false
}

// secondDocument returns the line where a second YAML document with
// content starts in data, or 0: a file holds one document, and YAML
// parsers read the first. Empty documents (a "---" that ends the file)
// and data that does not parse (reported by the parser) count for none.
func secondDocument(data []byte) int {
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	for n := 0; ; n++ {
		var doc yamlv3.Node
		if err := dec.Decode(&doc); err != nil {
			return 0
		}
		if n == 0 || len(doc.Content) == 0 {
			continue
		}
		if c := doc.Content[0]; c.Kind != yamlv3.ScalarNode || c.Tag != "!!null" {
			return c.Line
		}
	}
}

// setLines sets the File of each FieldError (and NonLoopbackError) in
// err's tree that is about a key of the YAML file data at path, not an
// environment variable, and its Line. It leaves the lines at 0 when data
// does not parse.
func setLines(path string, data []byte, err error) {
	var doc yamlv3.Node
	parsed := yamlv3.Unmarshal(data, &doc) == nil
	var walk func(error)
	walk = func(e error) {
		switch e := e.(type) {
		case *FieldError:
			if e.Env == "" {
				e.File = path
				if e.Line == 0 && parsed {
					e.Line = lineOf(&doc, e.Field)
				}
			}
		case *NonLoopbackError:
			if e.Env == "" {
				e.File = path
				if e.Line == 0 && parsed {
					e.Line = lineOf(&doc, "server.host")
				}
			}
		case interface{ Unwrap() []error }:
			for _, x := range e.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
}

// fieldPart matches one step of a field path: a key, or [i] in a list.
var fieldPart = regexp.MustCompile(`[^.\[\]]+|\[(\d+)\]`)

// lineOf returns the line of field ("server.port", "sources[1].kind") in
// doc: of its key, or of the deepest part of the path the document holds
// (the source of "sources[0].include/exclude[1]", a combined list); 0 when
// the document holds none of it.
func lineOf(doc *yamlv3.Node, field string) int {
	node, line := doc, 0
	if node.Kind == yamlv3.DocumentNode && len(node.Content) > 0 {
		node = node.Content[0]
	}
	for _, m := range fieldPart.FindAllStringSubmatch(field, -1) {
		if node.Kind == yamlv3.AliasNode && node.Alias != nil {
			node = node.Alias
		}
		next := (*yamlv3.Node)(nil)
		switch {
		case m[1] != "" && node.Kind == yamlv3.SequenceNode:
			if i, err := strconv.Atoi(m[1]); err == nil && i < len(node.Content) {
				next = node.Content[i]
				line = next.Line
			}
		case m[1] == "" && node.Kind == yamlv3.MappingNode:
			for i := 0; i+1 < len(node.Content); i += 2 {
				if node.Content[i].Value == m[0] {
					next = node.Content[i+1]
					line = node.Content[i].Line
				}
			}
		}
		if next == nil {
			break
		}
		node = next
	}
	return line
}

// envVarRef matches $NAME and ${NAME}.
var envVarRef = regexp.MustCompile(`\$(\{|[A-Za-z_])`)

// notExpanded says why path, as written in a source, would not be the
// folder meant, or returns "": only ~ and ~/ are expanded. $HOME/notes
// or ~bob/notes would be read as a folder of that very name beside
// config.yaml. Environment variables are left alone on purpose: novad
// and the watcher run under launchd or systemd, with other variables than
// the shell the operator tried the path in.
func notExpanded(path string) string {
	switch {
	case envVarRef.MatchString(path):
		return "environment variables are not expanded in paths: write ~/... for your home folder, or the absolute path"
	case strings.HasPrefix(path, "~") && path != "~" && !strings.HasPrefix(path, "~/"):
		return "~NAME (a user's home folder) is not expanded: write ~/... for your own, or the absolute path"
	}
	return ""
}

// checkTypes checks the type of every scalar key against its default's
// and puts the default back in place of a value of the wrong type, so
// that validation reports the other fields rather than this one again. A
// value set by an environment variable is reported with the variable.
func checkTypes(k *koanf.Koanf, fromEnv map[string]string) []error {
	defaults := defaultMap()
	var errs []error
	for _, key := range scalarKeys() {
		v := k.Get(key)
		if v == nil {
			// Every key has its default, so a nil one was written
			// without a value ("port:", "port: ~"), which would decode
			// as 0, false or "" (port 0 picks a random port), not as
			// the default the operator likely meant. A key of a
			// misshapen section, dropped above, no longer exists.
			if k.Exists(key) {
				errs = append(errs, noValue(key, defaults[key]))
				if err := k.Set(key, defaults[key]); err != nil {
					errs = append(errs, err)
				}
			}
			continue
		}
		var reason string
		switch defaults[key].(type) {
		case int:
			reason = notInt(v)
		case float64:
			if !isFloat(v) {
				reason = "must be a number"
			}
		case bool:
			if !isBool(v) {
				reason = "must be true or false"
			}
		case string:
			switch v.(type) {
			case map[string]any:
				// Keys under it are reported as unknown keys.
				if err := k.Set(key, defaults[key]); err != nil {
					errs = append(errs, err)
				}
			case []any:
				reason = "must be a single value"
			}
		}
		if reason == "" {
			continue
		}
		errs = append(errs, &FieldError{Field: key, Env: fromEnv[key], Value: shown(v), Reason: reason})
		if err := k.Set(key, defaults[key]); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// noValue is the error for key written without a value; def is its
// default.
func noValue(key string, def any) error {
	reason := "has no value: write one, or remove the key"
	if def != "" { // an empty default is not worth naming
		reason += fmt.Sprintf(" to use the default (%v)", def)
	}
	return &FieldError{Field: key, Reason: reason}
}

// notInt says why v is not an int, or returns "". An integer beyond the
// int range is too large, not wrapped round by the decoder (2^63 would
// be reported as -2^63); YAML reads a longer one as a float (1e+23).
//
// notInt, isFloat and isBool accept what the decoder reads as such, and
// no more: a string with spaces around the number (" 4000" from an
// environment variable) fails to decode, and the error must come from
// checkTypes, which names the variable.
func notInt(v any) string {
	switch x := v.(type) {
	case int, int64, int32:
		return ""
	case uint64:
		if x > math.MaxInt {
			return "is too large"
		}
		return ""
	case float64:
		switch {
		case x != math.Trunc(x):
			return "must be an integer"
		case x < math.MinInt:
			return "is too small"
		case x >= math.MaxInt: // MaxInt rounds up to 2^63
			return "is too large"
		}
		return ""
	case string:
		_, err := strconv.Atoi(x)
		switch {
		case errors.Is(err, strconv.ErrRange) && strings.HasPrefix(x, "-"):
			return "is too small"
		case errors.Is(err, strconv.ErrRange):
			return "is too large"
		case err != nil:
			return "must be an integer"
		}
		return ""
	}
	return "must be an integer"
}

func isFloat(v any) bool {
	switch x := v.(type) {
	case int, int64, int32, uint64, float64:
		return true
	case string:
		_, err := strconv.ParseFloat(x, 64)
		return err == nil
	}
	return false
}

func isBool(v any) bool {
	switch x := v.(type) {
	case bool:
		return true
	case string:
		_, err := strconv.ParseBool(x)
		return err == nil
	}
	return false
}

func defaultMap() map[string]any {
	d := Defaults()
	return map[string]any{
		"server.host":                     d.Server.Host,
		"server.port":                     d.Server.Port,
		"facade.port":                     d.Facade.Port,
		"embedding.provider":              d.Embedding.Provider,
		"embedding.endpoint":              d.Embedding.Endpoint,
		"embedding.model":                 d.Embedding.Model,
		"embedding.dimension":             d.Embedding.Dimension,
		"embedding.allowRemoteEndpoint":   d.Embedding.AllowRemoteEndpoint,
		"embedding.apiKeyEnv":             d.Embedding.APIKeyEnv,
		"embedding.batchSize":             d.Embedding.BatchSize,
		"embedding.timeoutSeconds":        d.Embedding.TimeoutSeconds,
		"retrieval.topK":                  d.Retrieval.TopK,
		"retrieval.latencyBudgetSeconds":  d.Retrieval.LatencyBudgetSeconds,
		"retrieval.maxConcurrentSearches": d.Retrieval.MaxConcurrentSearches,
		"retrieval.recencyHalfLifeDays":   d.Retrieval.RecencyHalfLifeDays,
		"retrieval.denseChannel":          d.Retrieval.DenseChannel,
		"index.keepGenerations":           d.Index.KeepGenerations,
		"index.chunkMaxChars":             d.Index.ChunkMaxChars,
		"index.chunkOverlapChars":         d.Index.ChunkOverlapChars,
		"index.contextWords":              d.Index.ContextWords,
		"index.contextTurns":              d.Index.ContextTurns,
		"index.annMinChunks":              d.Index.ANNMinChunks,
	}
}

// scalarKeys are the keys that may be set, as dotted paths.
func scalarKeys() []string {
	keys := make([]string, 0, 32)
	for k := range defaultMap() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// envNotConfig are NOVA_* variables that are not configuration keys.
var envNotConfig = []string{"NOVA_HOME"}

// envKey maps NOVA_RETRIEVAL_MAX_CONCURRENT_SEARCHES to
// retrieval.maxConcurrentSearches.
func envKey(name string) (string, error) {
	if slices.Contains(envNotConfig, name) {
		return "", nil
	}
	rest := strings.TrimPrefix(name, "NOVA_")
	section, field, ok := strings.Cut(rest, "_")
	if !ok {
		return "", &FieldError{Field: name, Env: name, Reason: "unknown environment variable: expected NOVA_<SECTION>_<KEY>, e.g. NOVA_SERVER_PORT"}
	}
	want := strings.ToLower(section) + "." + strings.ToLower(strings.ReplaceAll(field, "_", ""))
	for _, k := range scalarKeys() {
		if strings.ToLower(k) == want {
			return k, nil
		}
	}
	return "", &FieldError{Field: name, Env: name, Reason: "unknown environment variable: no such configuration key"}
}

// checkKeys rejects keys the configuration does not define, naming each,
// and returns the keys whose shape itself is wrong (a section that is not
// a section of keys, a source list that is not a list of sources). Those
// are reported here, once; the caller drops them so that decoding does
// not report them again, and skips validation, since the values around
// them cannot be judged.
func checkKeys(k *koanf.Koanf, dotted map[string]bool) (misshapen []string, _ error) {
	sections := map[string]bool{}
	for _, key := range scalarKeys() {
		section, _, _ := strings.Cut(key, ".")
		sections[section] = true
	}
	allowed := map[string]bool{}
	for _, key := range scalarKeys() {
		allowed[key] = true
	}
	var errs []error
	sources, sourcesIsList := k.Get("sources").([]any)
	if k.Exists("sources") && !sourcesIsList {
		reason := "must be a list of sources"
		if k.Get("sources") == nil {
			reason = `is empty (its sources commented out?): write "sources: []" for none, or remove the line`
		}
		errs = append(errs, &FieldError{Field: "sources", Value: shown(k.Get("sources")), Reason: reason})
		misshapen = append(misshapen, "sources")
	}
	for _, key := range k.Keys() {
		switch {
		case allowed[key] || key == "sources" || strings.HasPrefix(key, "sources."):
			// sources.* is a source list that is a map: reported above.
		case sections[key]:
			reason := "must be a section of keys"
			if k.Get(key) == nil {
				reason = "is empty (its keys commented out?): give it a key, or remove the line"
			}
			errs = append(errs, &FieldError{Field: key, Value: shown(k.Get(key)), Reason: reason})
			misshapen = append(misshapen, key)
		case dotted[key]:
			// Reported as written, with a dot; koanf's flattened key
			// cannot tell it from a nested one.
		default:
			errs = append(errs, &FieldError{Field: key, Reason: "unknown key: " + knownKeys(key)})
		}
	}
	sourceKeys := map[string]bool{}
	var sourceKeyList []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Source]()) {
		if name := f.Tag.Get("koanf"); name != "-" {
			sourceKeys[name] = true
			sourceKeyList = append(sourceKeyList, name)
		}
	}
	for i, item := range sources {
		// Each source is read on its own, not through k.Slices, which
		// skips items that are not maps and so would misnumber the rest.
		m, ok := item.(map[string]any)
		if !ok {
			errs = append(errs, &FieldError{Field: fmt.Sprintf("sources[%d]", i), Value: shown(item), Reason: "must be a source: a section of keys such as name, kind and path"})
			if !slices.Contains(misshapen, "sources") {
				misshapen = append(misshapen, "sources")
			}
			continue
		}
		s := koanf.New(".")
		if err := s.Load(confmap.Provider(m, ""), nil); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, key := range s.Keys() {
			top, _, _ := strings.Cut(key, ".")
			if !sourceKeys[top] {
				errs = append(errs, &FieldError{Field: fmt.Sprintf("sources[%d].%s", i, key), Reason: "unknown key: a source takes " + listed(sourceKeyList)})
			}
		}
	}
	return misshapen, errors.Join(errs...)
}

// knownKeys says what the configuration takes where the unknown key (a
// dotted path, not of a source) is: the sections, the keys of its
// section, or a single value.
func knownKeys(key string) string {
	sections := []string{"sources"}
	for _, k := range scalarKeys() {
		if section, _, _ := strings.Cut(k, "."); !slices.Contains(sections, section) {
			sections = append(sections, section)
		}
	}
	slices.Sort(sections)
	parts := strings.Split(key, ".")
	switch {
	case len(parts) == 1:
		return "the sections are " + listed(sections)
	case !slices.Contains(sections, parts[0]):
		return parts[0] + " is not a section; the sections are " + listed(sections)
	}
	var keys []string
	for _, k := range scalarKeys() {
		if name, ok := strings.CutPrefix(k, parts[0]+"."); ok {
			keys = append(keys, name)
		}
	}
	if slices.Contains(keys, parts[1]) {
		return parts[0] + "." + parts[1] + " takes a single value"
	}
	return parts[0] + " takes " + listed(keys)
}

// listed joins names as a sentence does: "a, b and c".
func listed(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// dottedKeys reports the keys of the YAML file data that contain a ".",
// in the order written: "server.port: 4000" is one key of that name to
// YAML, not port under server, and koanf, which joins nested keys with
// ".", cannot tell the two apart. Data that does not parse has none.
func dottedKeys(data []byte) []*FieldError {
	var doc yamlv3.Node
	if yamlv3.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	var found []*FieldError
	var walk func(n *yamlv3.Node, prefix string)
	walk = func(n *yamlv3.Node, prefix string) {
		switch n.Kind {
		case yamlv3.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				key := n.Content[i]
				field := key.Value
				if prefix != "" {
					field = prefix + "." + key.Value
				}
				if strings.Contains(key.Value, ".") {
					parts := strings.Split(key.Value, ".")
					found = append(found, &FieldError{Field: field, Line: key.Line,
						Reason: `a key cannot contain ".": nest its parts instead, each on its own line, indented under the one before (` + strings.Join(parts, ":, ") + ":)"})
					continue
				}
				walk(n.Content[i+1], field)
			}
		case yamlv3.SequenceNode:
			for i, item := range n.Content {
				walk(item, fmt.Sprintf("%s[%d]", prefix, i))
			}
		}
	}
	walk(doc.Content[0], "")
	return found
}

// shown formats a configuration value for an error message; an empty
// value or a section is not shown, since Go's rendering of it would only
// confuse.
func shown(v any) string {
	switch v.(type) {
	case nil, map[string]any:
		return ""
	}
	return fmt.Sprint(v)
}

// splitList decodes a string written where a list of strings belongs
// (tags: "a, b") as the list of its comma-separated items, without the
// spaces around them. A comma inside braces is a glob's alternatives
// (include: "*.{md,txt}"), not a separator.
func splitList(from, to reflect.Type, data any) (any, error) {
	s, ok := data.(string)
	if !ok || from.Kind() != reflect.String || to != reflect.TypeFor[[]string]() {
		return data, nil
	}
	if s == "" {
		return []string{}, nil
	}
	var items []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			depth = max(depth-1, 0)
		case ',':
			if depth == 0 {
				items = append(items, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(items, strings.TrimSpace(s[start:])), nil
}

// boolAsText decodes true or false written where text belongs
// (denseChannel: false, a tag true) as the word, where the weakly typed
// decoder would make it "1" or "0".
func boolAsText(from, to reflect.Type, data any) (any, error) {
	if b, ok := data.(bool); ok && from.Kind() == reflect.Bool && to.Kind() == reflect.String {
		return strconv.FormatBool(b), nil
	}
	return data, nil
}

// decodeErrors turns what decoding refused into field errors, one for
// each field, in place of mapstructure's multi-line report. Anything it
// does not recognise is kept as it is.
func decodeErrors(err error) []error {
	var out []error
	var walk func(error)
	walk = func(e error) {
		var de *mapstructure.DecodeError
		switch x := e.(type) {
		case interface{ Unwrap() []error }:
			for _, y := range x.Unwrap() {
				walk(y)
			}
			return
		case *mapstructure.DecodeError:
			de = x
		default:
			if inner := errors.Unwrap(e); inner != nil {
				walk(inner)
				return
			}
			out = append(out, fmt.Errorf("%w: %v", ErrInvalid, e))
			return
		}
		inner := de.Unwrap()
		var nested *mapstructure.DecodeError
		if errors.As(inner, &nested) {
			walk(inner)
			return
		}
		fe := &FieldError{Field: de.Name(), Reason: inner.Error()}
		var pe *mapstructure.ParseError
		var ue *mapstructure.UnconvertibleTypeError
		switch {
		case errors.As(inner, &pe):
			fe.Reason, fe.Value = mustBe(pe.Expected.Kind()), shown(pe.Value)
		case errors.As(inner, &ue):
			fe.Reason, fe.Value = mustBe(ue.Expected.Kind()), shown(ue.Value)
		}
		out = append(out, fe)
	}
	walk(err)
	return out
}

// mustBe says what a value of kind must be, in the words checkTypes uses.
func mustBe(kind reflect.Kind) string {
	switch kind {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "must be an integer"
	case reflect.Float32, reflect.Float64:
		return "must be a number"
	case reflect.Bool:
		return "must be true or false"
	case reflect.String:
		return "must be a single value"
	case reflect.Slice, reflect.Array:
		return "must be a list"
	}
	return "must be a section of keys"
}

// Problem is one configuration error as a program reads it (novactl
// config check --json).
type Problem struct {
	// Field is the dotted key, or "" for an error about the whole file.
	Field string `json:"field,omitempty"`
	// Env is the environment variable the value came from, if it did.
	Env string `json:"env,omitempty"`
	// File is the config file the value is from, when it is from one.
	File string `json:"file,omitempty"`
	// Line is the line of config.yaml the field is on, when it is there.
	Line int `json:"line,omitempty"`
	// Message says what is wrong, without the field.
	Message string `json:"message"`
}

// Problems lists the errors in err, as returned by Load or LoadFile, one
// Problem for each.
func Problems(err error) []Problem {
	var out []Problem
	var walk func(error)
	walk = func(e error) {
		switch e := e.(type) {
		case nil:
		case *FieldError:
			out = append(out, Problem{Field: e.Field, Env: e.Env, File: e.File, Line: e.Line, Message: e.message()})
		case *NonLoopbackError:
			out = append(out, Problem{Field: "server.host", Env: e.Env, File: e.File, Line: e.Line, Message: e.message()})
		case interface{ Unwrap() []error }: // errors.Join
			for _, x := range e.Unwrap() {
				walk(x)
			}
		default:
			out = append(out, Problem{Message: e.Error()})
		}
	}
	walk(err)
	return out
}

// AsMap returns c as the configuration file spells it: nested maps keyed
// by the documented keys (the koanf tags), so that it can be written back
// as config.yaml. Home and File are not keys and are left out. Lists are
// never nil: a null where a list belongs would not load.
func (c Config) AsMap() map[string]any {
	return keyMap(reflect.ValueOf(c))
}

func keyMap(v reflect.Value) map[string]any {
	out := map[string]any{}
	for i := range v.NumField() {
		name := v.Type().Field(i).Tag.Get("koanf")
		if name == "" || name == "-" {
			continue
		}
		out[name] = keyValue(v.Field(i))
	}
	return out
}

func keyValue(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Struct:
		return keyMap(v)
	case reflect.Slice:
		list := make([]any, v.Len())
		for i := range list {
			list[i] = keyValue(v.Index(i))
		}
		return list
	}
	return v.Interface()
}
