package api

// Health is the body of the direct server's GET /health.
type Health struct {
	Status  string `json:"status"`
	Version string `json:"version"`
	// SourceCommit is the commit novad was built from (40 or 64 hex
	// digits), null when the build did not record one.
	SourceCommit *string `json:"sourceCommit"`
	Model        string  `json:"model"`
	Dimension    int     `json:"dimension"`
	// Provider is the embedding mode (ProfileView.Mode), as the
	// contract's /health gives it; ProviderID names the provider.
	Provider                 string       `json:"provider"`
	ProviderID               string       `json:"providerId"`
	EmbeddingProfile         *ProfileView `json:"embeddingProfile"`
	EmbeddingProfileHash     string       `json:"embeddingProfileHash"`
	ProviderLoaded           bool         `json:"providerLoaded"`
	InternalEncodeAuthorized bool         `json:"internalEncodeAuthorized"`
	IndexPath                *string      `json:"indexPath"`
	IndexSource              string       `json:"indexSource"`
	IndexReady               bool         `json:"indexReady"`
	IndexUnavailableReason   string       `json:"indexUnavailableReason"`
	IndexExists              bool         `json:"indexExists"`
	IndexLoaded              bool         `json:"indexLoaded"`
	Entries                  int          `json:"entries"`
	Generation               string       `json:"generation,omitempty"`
	Reload                   ReloadStatus `json:"reload"`
	Integrity                Integrity    `json:"integrity"`
	StartedAt                string       `json:"startedAt"`
	// Freshness is the same object as the facade's ragStatus.freshness.
	Freshness Freshness `json:"freshness"`
}

// Reasons of Health.IndexUnavailableReason (the contract's active-index
// reasons).
const (
	// ActiveIndexReady: the generation the manifest names is served.
	ActiveIndexReady = "v2-active-ready"
	// ActiveIndexMissing: the generation the manifest names is missing or
	// failed verification (novad may serve an older intact one instead;
	// Integrity says which).
	ActiveIndexMissing = "v2-active-index-missing"
)

// FreshnessServerIndexNotReady is the contract's freshness status for a
// server that does not serve the active generation: novad serves an older
// intact one because the active one failed verification.
const FreshnessServerIndexNotReady = "server-index-not-ready"

// FreshnessServerUnhealthy is the contract's freshness status when novad
// does not answer (doctor's view: novad cannot say so of itself).
const FreshnessServerUnhealthy = "server-unhealthy"

// FreshnessMissing is the contract's freshness status when no index is
// active; the facade's search gives it as its reason.
const FreshnessMissing = "missing"

// Integrity states.
const (
	// IntegrityVerified: novad serves the active generation and its files
	// passed the last check.
	IntegrityVerified = "verified"
	// IntegrityFallback: the active generation is missing or failed
	// verification (or the manifest is unreadable); novad serves the newest
	// intact kept generation instead.
	IntegrityFallback = "fallback"
	// IntegrityDamaged: files of the generation novad serves were removed
	// and no intact kept generation could replace it; novad answers from
	// its mapping of them, which still holds what was verified. (Files
	// changed in place are not read again: IntegrityNone.)
	IntegrityDamaged = "damaged"
	// IntegrityNone: the active generation failed verification and no
	// kept generation is intact: nothing is served.
	IntegrityNone = "none"
)

// Integrity reports what novad knows about the files of the generation it
// serves: the last checks (sizes and modification times often, every
// checksum less often) and, when it does not serve the generation the
// manifest names, which one it serves and why. Status is "" before the
// first generation is loaded.
type Integrity struct {
	Status string `json:"status,omitempty"`
	// ActiveRunID is the generation the manifest names ("" when the
	// manifest is unreadable); ServedRunID the one novad serves.
	ActiveRunID string `json:"activeRunId,omitempty"`
	ServedRunID string `json:"servedRunId,omitempty"`
	// Problem is the verification failure that caused a fallback, damage
	// or none (no secrets: file names, sizes and checksum prefixes).
	Problem string `json:"problem,omitempty"`
	// Skipped lists kept generations passed over because they failed
	// verification too.
	Skipped []string `json:"skipped,omitempty"`
	// CheckedAt and DeepCheckedAt are the last quick (sizes and
	// modification times) and deep (every checksum) checks of the served
	// generation's files.
	CheckedAt     string `json:"checkedAt,omitempty"`
	DeepCheckedAt string `json:"deepCheckedAt,omitempty"`
}

// ReloadStatus reports the hot-reload loop: the last attempt, whether it
// succeeded, and the error of the last failure (no secrets).
type ReloadStatus struct {
	LastAttemptAt        string `json:"lastAttemptAt,omitempty"`
	LastSuccessAt        string `json:"lastSuccessAt,omitempty"`
	LastReloadSuccessful bool   `json:"lastReloadSuccessful"`
	LastError            string `json:"lastError,omitempty"`
	FailedRunID          string `json:"failedRunId,omitempty"`
	Reloads              int    `json:"reloads"`
}

// EmbeddingProfile identifies a vector space: vectors from two different
// profiles must never be compared.
type EmbeddingProfile struct {
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	Dimension int    `json:"dimension"`
}

// Stats is the body of the direct server's GET /stats.
type Stats struct {
	Status string     `json:"status"`
	Server StatsSrv   `json:"server"`
	Index  StatsIndex `json:"index"`
	API    StatsAPI   `json:"api"`
}

// StatsSrv describes the serving process.
type StatsSrv struct {
	Title     string `json:"title"`
	Version   string `json:"version"`
	Model     string `json:"model"`
	Dimension int    `json:"dimension"`
	// Provider and ProviderID are as in Health.
	Provider             string       `json:"provider"`
	ProviderID           string       `json:"providerId"`
	EmbeddingProfile     *ProfileView `json:"embeddingProfile"`
	EmbeddingProfileHash string       `json:"embeddingProfileHash"`
	ProviderLoaded       bool         `json:"providerLoaded"`
}

// ProfileView is an embedding profile as /health and /stats give it, in
// the contract's shape {mode, providerId, model, dimension}. Mode is
// ModeLocal for an embedder inside novad (the builtin model) and
// ModeCloud for one reached through a provider's API, wherever it runs.
// EmbeddingProfile stays the stored form: its hash is in every manifest.
type ProfileView struct {
	Mode       string `json:"mode"`
	ProviderID string `json:"providerId"`
	Model      string `json:"model"`
	Dimension  int    `json:"dimension"`
}

// The contract's embedding modes (ProfileView.Mode).
const (
	ModeLocal = "local"
	ModeCloud = "cloud"
)

// StatsIndex describes the loaded generation.
type StatsIndex struct {
	Source            string         `json:"source"`
	Path              *string        `json:"path"`
	Generation        string         `json:"generation,omitempty"`
	Ready             bool           `json:"ready"`
	UnavailableReason string         `json:"unavailableReason"`
	Exists            bool           `json:"exists"`
	Loaded            bool           `json:"loaded"`
	Entries           int            `json:"entries"`
	Layers            map[string]int `json:"layers"`
	Agents            map[string]int `json:"agents"`
	Projects          map[string]int `json:"projects"`
	SourceSets        map[string]int `json:"sourceSets"`
	Tags              map[string]int `json:"tags"`
	DateRange         DateSpan       `json:"dateRange"`
	DenseSearch       string         `json:"denseSearch,omitempty"`
}

// DateSpan is the first and last business date in an index.
type DateSpan struct {
	Start *string `json:"start"`
	End   *string `json:"end"`
}

// StatsAPI states the read-only boundary.
type StatsAPI struct {
	ReadOnly               bool              `json:"readOnly"`
	MutationAllowed        bool              `json:"mutationAllowed"`
	Endpoints              map[string]string `json:"endpoints"`
	RejectedMutationStatus int               `json:"rejectedMutationStatus"`
}

// FacadeHealth is the body of GET /api/rag/external/health.
type FacadeHealth struct {
	Available             bool      `json:"available"`
	Reason                string    `json:"reason,omitempty"`
	ReadOnly              bool      `json:"readOnly"`
	MutationAllowed       bool      `json:"mutationAllowed"`
	ExternalAgentContract *Contract `json:"externalAgentContract"`
	RagStatus             RagStatus `json:"ragStatus"`
}

// RagStatus is the compact readiness summary the facade reports. Upstream's
// status block carried absolute paths and settings; Nova keeps only what an
// agent needs to act on.
type RagStatus struct {
	Ready           bool              `json:"ready"`
	SearchAvailable bool              `json:"searchAvailable"`
	Freshness       Freshness         `json:"freshness"`
	Generation      string            `json:"generation,omitempty"`
	ChunkCount      int               `json:"chunkCount"`
	Profile         *EmbeddingProfile `json:"embeddingProfile,omitempty"`
	NetworkBoundary NetworkBoundary   `json:"networkBoundary"`
	// Integrity is present when novad does not serve the generation the
	// manifest names (freshness server-index-not-ready) or serves nothing
	// because every generation failed verification.
	Integrity *Integrity `json:"integrity,omitempty"`
}

// Freshness carries the first blocking condition, used as the search reason
// (status), and how current memory is: when the sources last changed, when
// the index last caught up with them, and how long the oldest change not
// yet searchable has waited. The last four fields are Nova's additions to
// the upstream {status, checkedAt}.
type Freshness struct {
	Status    string `json:"status"`
	CheckedAt string `json:"checkedAt"`
	// SourcesChangedAt is when the source watcher last saw a source file
	// change (RFC 3339); null when no watcher has recorded one.
	SourcesChangedAt *string `json:"sourcesChangedAt"`
	// IndexCaughtUpAt is the latest time up to which every source change
	// is searchable: the start of the watcher's last successful sync, or
	// the active generation's build time if later; null without an index.
	IndexCaughtUpAt *string `json:"indexCaughtUpAt"`
	// LagSeconds is how long the oldest change that is not yet searchable
	// has waited (0 when caught up); null when unknown, that is when no
	// watcher is running.
	LagSeconds *float64 `json:"lagSeconds"`
	// Watcher is what the source watcher (novactl index watch) reports.
	Watcher WatcherStatus `json:"watcher"`
}

// WatcherStatus is the public part of the source watcher's state.
type WatcherStatus struct {
	// Running: a watcher holds its lock for this home now.
	Running bool `json:"running"`
	// PID and StartedAt are those of the running (or last) watcher.
	PID       int    `json:"pid,omitempty"`
	StartedAt string `json:"startedAt,omitempty"`
	// LastSyncAt is when its last sync finished; LastSyncResult is ok,
	// failed, busy (another index writer held the lock; it retries) or
	// cancelled (the watcher stopped during it).
	LastSyncAt     string `json:"lastSyncAt,omitempty"`
	LastSyncResult string `json:"lastSyncResult,omitempty"`
	// WatchedDirs are folders with a file system watch; PolledDirs are
	// folders only the periodic rescan covers (a watch limit was hit or
	// the file system has no events).
	WatchedDirs  int `json:"watchedDirs"`
	WatchedFiles int `json:"watchedFiles"`
	PolledDirs   int `json:"polledDirs"`
	// LimitsHit names the limits reached: inotify-watches, open-files.
	LimitsHit []string `json:"limitsHit"`
	// FilesGone counts source files that disappeared while their memory
	// is kept (see novactl index sync --prune-missing).
	FilesGone int `json:"filesGone"`
}

// NetworkBoundary states the loopback-only policy.
type NetworkBoundary struct {
	SchemaVersion  int     `json:"schemaVersion"`
	Policy         string  `json:"policy"`
	Status         string  `json:"status"`
	IssueCode      *string `json:"issueCode"`
	EncodeExposure string  `json:"encodeExposure"`
}

// EncodeRequest is the body of POST /encode.
type EncodeRequest struct {
	Texts []string `json:"texts"`
}

// MaxEncodeTexts bounds one /encode call.
const MaxEncodeTexts = 512

// MaxEncodeBodyBytes bounds an /encode body.
const MaxEncodeBodyBytes = 8 << 20

// ServerState is novad's public process state, written to
// NOVA_HOME/state/server-state.json at start and on every generation swap.
// It never holds a secret: the token lives only in its 0600 file.
type ServerState struct {
	PID        int    `json:"pid"`
	Host       string `json:"host"`
	DirectPort int    `json:"directPort"`
	FacadePort int    `json:"facadePort"`
	StartedAt  string `json:"startedAt"`
	Version    string `json:"version"`
	Generation string `json:"generation,omitempty"`
	TokenFile  string `json:"tokenFile"`
	StoppedAt  string `json:"stoppedAt,omitempty"`
}
