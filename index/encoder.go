package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/secrets"
)

// ErrAuthUnavailable means novad is running but its token file cannot be
// trusted, so the build refuses to talk to it (rag-internal-authorization-unavailable).
var ErrAuthUnavailable = errors.New(api.CodeAuthUnavailable)

// discoverEncoder returns a Remote embedder when a novad is running for
// this home and serves the same embedding profile; nil when none is (the
// build then embeds in-process with the same code).
func discoverEncoder(ctx context.Context, home paths.Home, want api.EmbeddingProfile) (embedding.Embedder, error) {
	// The state file outlives a novad killed with -9, and its ports may
	// now be another home's novad: only while a process holds this home's
	// novad lock is the state file's novad this home's, the one this
	// home's token (and its memory text) are for.
	// Nor while that novad is still starting: it may be waiting for its
	// ports, which another program (maybe another user's) holds, and
	// the state file is then a previous novad's.
	if !lockfile.Held(home.DaemonLock()) || lockfile.ReadHolder(home.DaemonLock()).IsStarting() {
		return nil, nil
	}
	// Only a regular file: a named pipe would block the read, and the
	// build with it; what is not a file is no novad's state.
	b, _, err := paths.ReadRegular(home.ServerState(), 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, nil
	}
	var st api.ServerState
	if json.Unmarshal(b, &st) != nil || st.DirectPort == 0 || st.StoppedAt != "" || !config.IsLoopbackHost(st.Host) {
		return nil, nil
	}
	base := "http://" + net.JoinHostPort(config.BindHost(st.Host), strconv.Itoa(st.DirectPort))
	h, err := probeHealth(ctx, base)
	if err != nil {
		return nil, nil // not running (stale state file)
	}
	// The hash is of the stored profile (the manifest's), so equal hashes
	// are the same provider, model and dimension.
	if h.EmbeddingProfileHash != manifest.ProfileHash(want) || !h.ProviderLoaded {
		return nil, nil
	}
	tok, err := secrets.ReadToken(home.TokenFile())
	if err != nil {
		return nil, fmt.Errorf("%w: novad is running but its token file cannot be used (%v); run novactl doctor", ErrAuthUnavailable, err)
	}
	return embedding.NewRemote(base, tok, want), nil
}

func probeHealth(ctx context.Context, base string) (*api.Health, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+api.PathHealth, nil)
	if err != nil {
		return nil, err
	}
	// One request: a connection kept for a next one that never comes
	// would stay open, in this process and in novad, until novad's idle
	// timeout, for every sync the watcher runs meanwhile.
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("health answered %d", resp.StatusCode)
	}
	var h api.Health
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&h); err != nil {
		return nil, err
	}
	return &h, nil
}
