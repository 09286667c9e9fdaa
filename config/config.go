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
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/v2"

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
	// hermes, gemini, aider, cursor or chat-export.
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
	// notes (codex, claude-code, openclaw, hermes, gemini, aider, cursor;
	// and of a chat-export's conversations, chatgpt or claude.ai).
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
	// KindCursor reads the agent transcripts Cursor (the editor's agent
	// and the cursor-agent CLI) writes under ~/.cursor/projects:
	// <project>/agent-transcripts/<session>/<session>.jsonl and its
	// sub-agents' files (older builds: <session>.jsonl or <session>.txt
	// right in agent-transcripts). Its SQLite stores (state.vscdb) are not
	// read.
	KindCursor = "cursor"
	// KindChatExport reads the conversations.json of ChatGPT's and
	// Claude.ai's data exports (Settings > Data controls > Export: a zip
	// holding it), unzipped into a folder: each conversation's turns, as
	// agent chatgpt or claude.ai.
	KindChatExport = "chat-export"
)

// Kinds lists the supported source kinds.
var Kinds = []string{KindJSONL, KindMarkdown, KindCodex, KindClaudeCode, KindOpenClaw, KindHermes, KindGemini, KindAider, KindCursor, KindChatExport}

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

// Load reads the configuration for the runtime home named by environ.
func Load(environ []string) (Config, error) {
	home, err := paths.Resolve(environ)
	if err != nil {
		return Config{}, err
	}
	return LoadFile(home, home.Config(), environ)
}

// MaxFileSize is the largest config.yaml read, 4 MiB: tens of thousands
// of sources. A larger file is not a configuration (a log or a database
// linked there by mistake), and reading and parsing it whole would hold
// novad and every novactl command up.
const MaxFileSize = 4 << 20

// LoadFile reads the configuration from path (missing is fine: defaults
// apply, but not a link to a missing file) with environment overrides
// from environ.
func LoadFile(home paths.Home, path string, environ []string) (Config, error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return Config{}, fmt.Errorf("%s is a folder, not a config file", path)
	case err == nil:
		// Read once: the errors' lines are looked up in what was
		// loaded, not in a file that may have changed since. A named
		// pipe there would block the read, and novad with it, until a
		// writer came: ReadRegular refuses it without waiting, and the
		// file judged is the one read.
		data, ofi, err := paths.ReadRegular(path, MaxFileSize)
		if nf, ok := errors.AsType[*paths.NotFileError](err); ok {
			return Config{}, fmt.Errorf("%w: %v; config.yaml must be a file (novactl config init writes one)", ErrInvalid, nf)
		}
		if tl, ok := errors.AsType[*paths.TooLargeError](err); ok {
			return Config{}, fmt.Errorf("%w: %s is %d bytes, and a config file is at most %d (4 MiB): is it the file meant?", ErrInvalid, path, tl.Size, MaxFileSize)
		}
		if err != nil {
			return Config{}, fmt.Errorf("read %s: %w", path, err)
		}
		if err := checkWriters(path, ofi); err != nil {
			return Config{}, err
		}
		return load(home, path, data, true, environ)
	case errors.Is(err, syscall.ENOTDIR):
		// NOVA_HOME (or a folder above it) is a file: say which, not
		// "stat .../config.yaml: not a directory".
		return Config{}, fmt.Errorf("read %s: %s", path, paths.NotAFolder(filepath.Dir(path)))
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
		if line, b := notUTF8(data); line > 0 {
			// The parser says "invalid trailing UTF-8 octet", on no
			// line.
			return Config{}, fmt.Errorf("%w: %s: line %d is not UTF-8 text (byte 0x%02x: saved as Latin-1 or Windows-1252?); save it as UTF-8", ErrInvalid, path, line, b)
		}
		if err := k.Load(rawBytes(data), yaml.Parser()); err != nil {
			if line := tabIndented(data); line > 0 {
				// The parser's message names no tab, or the line
				// before it.
				return Config{}, fmt.Errorf("read %s: %w (line %d starts with a tab: YAML indents with spaces only, even on a blank line)", path, atLine(err, line), line)
			}
			if line, what := notSettings(data); line > 0 {
				return Config{}, fmt.Errorf("%w: %s: line %d: the file holds %s", ErrInvalid, path, line, what)
			}
			if line := bracketedHost(data); line > 0 {
				return Config{}, &FieldError{Field: "server.host", File: path, Line: line,
					Reason: `an address in brackets is a YAML list here: write it in quotes, host: "::1"`}
			}
			if dups := duplicateKeys(data); len(dups) > 0 {
				// The parser lists them under one "unmarshal errors:"
				// line: each is a field's error, on a line of its own.
				var errs []error
				for _, d := range dups {
					errs = append(errs, d)
				}
				err := errors.Join(errs...)
				setLines(path, data, err)
				return Config{}, err
			}
			return Config{}, fmt.Errorf("read %s: %w", path, anchorLine(parserLine(err), data))
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
	for _, e := range octalInts(data) {
		errs = append(errs, e)
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
			cfg.Sources[i].NovaHome = homeWithin(home, src)
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
