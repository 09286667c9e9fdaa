// Package daemon is novad: two loopback HTTP listeners (the direct server
// and the external-agent facade) over the recall engine, the security
// middleware that keeps them local and read-only, the internal token, the
// hot-reload loop that swaps index generations in without a restart, and
// the service-manager adapter.
package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"weak"

	"golang.org/x/net/netutil"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/atomicfile"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/embedding"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/index/generation"
	"github.com/nova-recall/nova/internal/version"
	"github.com/nova-recall/nova/lexical"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/search"
	"github.com/nova-recall/nova/secrets"
)

// Options configure a Server.
type Options struct {
	// Config is the validated configuration.
	Config config.Config
	// Logger receives operational logs; nil discards them.
	Logger *slog.Logger
	// Environ is the process environment (for the openai API key variable).
	Environ []string
	// Poll is the manifest checksum poll interval, at which the token and
	// lock files removed with state/ are also looked for; 0 means 30 s.
	Poll time.Duration
	// Debounce is the manifest watcher debounce; 0 means 200 ms.
	Debounce time.Duration
	// ShutdownGrace bounds the graceful shutdown; 0 means 5 s.
	ShutdownGrace time.Duration
	// CheckEvery is how often the served generation's file sizes and
	// modification times are compared with those it was loaded with,
	// while requests come (the checks pause while none does); 0 means
	// 10 s.
	CheckEvery time.Duration
	// DeepCheckEvery is how often every file of the served generation is
	// hashed again (one that came due while no request came is made at
	// the next); 0 means 1 h.
	DeepCheckEvery time.Duration
	// BindRetry is how long a taken port is retried before Run gives up
	// with ErrPortInUse (a novad killed a moment ago may still hold it);
	// 0 means 5 s, a negative value does not retry.
	BindRetry time.Duration
	// WaitForHome makes a novad whose home another novad serves stand by
	// until that one stops, then serve, instead of returning
	// ErrAlreadyServing once BindRetry has passed. Service definitions ask
	// for it (--wait-for-config): when two jobs run novad for one home
	// (brew services and novactl service install), the loser's exit would
	// be relaunched by launchd every 10 s, each time with a burst of log
	// lines, for as long as both are installed. It also makes ports
	// another program holds past BindRetry waited for (see bind).
	WaitForHome bool
	// MaxConnections caps the connections each listener serves at once;
	// more wait in the kernel's queue until one closes. 0 means 128.
	MaxConnections int
	// Now is the clock for the dates a query names ("yesterday"), for
	// recency, freshness and the times novad reports; nil uses time.Now.
	// Latencies are measured with the monotonic clock regardless.
	Now func() time.Time
	// Location is the user's time zone, in which memories' days are given,
	// filtered and summed up (/stats' dateRange); nil is the machine's.
	Location *time.Location
}

// Server is a running novad. Create it with New and run it with Run.
type Server struct {
	cfg      config.Config
	home     paths.Home
	log      *slog.Logger
	opts     Options
	analyzer *lexical.Analyzer
	// segments shares mapped segments between the generations novad
	// loads: a reload after an incremental sync maps only the new delta.
	segments *generation.Cache
	// openActive opens the generation the manifest names (index.OpenServed;
	// tests put a promotion between the manifest's read and the open).
	openActive func(context.Context, paths.Home, *manifest.Manifest, *lexical.Analyzer, *generation.Cache) (*index.Served, error)
	// chineseOnce starts loadChinese at the first generation served
	// that holds Chinese.
	chineseOnce sync.Once
	// redactionOnce starts loadRedaction at the first generation served.
	redactionOnce sync.Once
	engine        *search.Engine
	// embedder is the configured query embedder for non-builtin
	// providers; builtin generations carry their own.
	embedder embedding.Embedder

	current atomic.Pointer[served]
	loading atomic.Bool
	// reloadMu serialises reloads. Searches never take it: they read the
	// current snapshot through the atomic pointer.
	reloadMu   sync.Mutex
	statusMu   sync.Mutex
	reload     api.ReloadStatus
	failedHash string
	// failedStamp is the state of the files of the generation that failed
	// to load (filesStamp), when its manifest could be read.
	failedStamp string
	integrity   api.Integrity
	// unservedMismatch: nothing is served, and the generation the
	// manifest names was embedded with another profile than the one
	// configured. The mismatch, not the failed load, is then what
	// ragStatus reports: rebuilding fixes both (conformance 12.5).
	unservedMismatch bool

	permits chan struct{}
	token   secrets.Token
	// readOnly: the home is on a read-only file system; no token or
	// server state is written, and /encode is refused.
	readOnly bool

	directLn, facadeLn   net.Listener
	directSrv, facadeSrv *http.Server
	startedAt            time.Time
	// work is cancelled when the server shuts down: in-flight searches end.
	work       context.Context
	cancelWork context.CancelFunc
	hup        chan struct{}
	// checkNow asks the reload loop for a re-check of the served files
	// before the next tick (a search panicked: they may be damaged).
	checkNow chan struct{}
	// used tells the reload loop that a request came (see markUsed).
	used chan struct{}
	// collect asks the reload loop for a garbage collection: a generation
	// that nothing serves or searches any more is unreachable, and only a
	// collection runs the cleanups that unmap its files (see retire).
	collect chan struct{}
	// retired are the snapshots replaced since the last collection
	// found them gone, and retries how many times in a row one was
	// found still reachable with no search on it. The reload loop alone
	// uses them.
	retired []weak.Pointer[served]
	retries int
	// republishFailed: the last republishToken could not write the
	// token file (its failure is logged once). The reload loop alone
	// uses it.
	republishFailed bool
	// homeLock is the home's novad lock, held from before the bind until
	// Run returns. The reload loop replaces it when its file is gone
	// (relockHome), and says on lockLost when another process took the
	// file's new lock first: Run then stops.
	homeLock releaser
	lockLost chan error
	// standbyEvery is how often a standby tries the home's lock when
	// blocking on it cannot tell (standbySafetyPoll; tests shorten it),
	// and standbyTried, when set, is told of each try (tests count them).
	standbyEvery time.Duration
	standbyTried func()
	// relockFailed: the last relockHome could not lock a new file (its
	// failure is logged once). The reload loop alone uses it.
	relockFailed bool
	inflight     sync.WaitGroup
}

// served is one loaded generation and how it relates to the config. It is
// immutable; a reload swaps in a new one.
type served struct {
	snap *search.Snapshot
	// gen is the generation with the record that vouched for it: the
	// manifest, or a kept generation's candidate record when novad falls
	// back to it.
	gen *index.Served
	// hash is the manifest content this was loaded for (for a fallback:
	// the manifest whose generation could not be served).
	hash      string
	loadedAt  time.Time
	profileOK bool
	// searches counts the searches running on this snapshot; retired is
	// set once another replaced it. The last search on a retired snapshot
	// asks for a collection (see collect).
	searches atomic.Int64
	retired  atomic.Bool
}

func (c *served) runID() string { return c.gen.Record.RunID }

// Errors that map to distinct exit codes.
var (
	// ErrPortInUse means a listener's port is taken.
	ErrPortInUse = errors.New("port already in use")
	// ErrAlreadyServing means another novad serves the same home.
	ErrAlreadyServing = errors.New("another novad serves this NOVA_HOME")
	// ErrHomeLockLost means a serving novad found its home's lock file
	// gone and another process holding the new one (see relockHome); it
	// wraps ErrAlreadyServing.
	ErrHomeLockLost = fmt.Errorf("%w: another process locked it while its novad lock file was gone", ErrAlreadyServing)
	// ErrNonLoopback means the configuration or a listener is not loopback.
	ErrNonLoopback = errors.New(api.CodeNonLoopback)
	// ErrReadOnlyHome means the home is on a read-only file system and
	// cannot be served from: its novad lock file is missing and cannot be
	// created, or a directory novad needs is.
	ErrReadOnlyHome = errors.New("NOVA_HOME is read-only")
)

// readOnlyAdvice is what a person does about ErrReadOnlyHome.
const readOnlyAdvice = "make the volume writable (or remount it read-write), or copy the home to a writable place (cp -a) and set NOVA_HOME to the copy"

// New returns a server for opts. It does not bind anything yet.
func New(opts Options) (*Server, error) {
	cfg := opts.Config
	if !config.IsLoopbackHost(cfg.Server.Host) {
		return nil, fmt.Errorf("%w: server.host %q is not a loopback address", ErrNonLoopback, cfg.Server.Host)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Poll <= 0 {
		opts.Poll = 30 * time.Second
	}
	if opts.ShutdownGrace <= 0 {
		opts.ShutdownGrace = 5 * time.Second
	}
	if opts.CheckEvery <= 0 {
		opts.CheckEvery = 10 * time.Second
	}
	if opts.DeepCheckEvery <= 0 {
		opts.DeepCheckEvery = time.Hour
	}
	if opts.BindRetry == 0 {
		opts.BindRetry = 5 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxConnections <= 0 {
		opts.MaxConnections = 128
	}
	analyzer := lexical.NewAnalyzer()
	searchCfg := search.ConfigFor(cfg.Retrieval)
	searchCfg.Now = opts.Now
	if opts.Location != nil {
		searchCfg.Location = opts.Location
	}
	s := &Server{
		cfg: cfg, home: cfg.Home, log: opts.Logger, opts: opts, analyzer: analyzer, segments: generation.NewCache(),
		openActive: index.OpenServed,
		engine:     search.New(searchCfg, analyzer),
		permits:    make(chan struct{}, cfg.Retrieval.MaxConcurrentSearches),
		hup:        make(chan struct{}, 1),
		checkNow:   make(chan struct{}, 1),
		used:       make(chan struct{}, 1),
		collect:    make(chan struct{}, 1),
		lockLost:   make(chan error, 1),

		standbyEvery: standbySafetyPoll,
	}
	if cfg.Embedding.Provider == config.ProviderOpenAI {
		s.embedder = embedding.NewOpenAI(embedding.OpenAIOptions{
			Endpoint: cfg.Embedding.Endpoint, Model: cfg.Embedding.Model, Dimension: cfg.Embedding.Dimension,
			APIKey: paths.Lookup(opts.Environ, cfg.Embedding.APIKeyEnv), BatchSize: cfg.Embedding.BatchSize,
			Timeout: time.Duration(cfg.Embedding.TimeoutSeconds) * time.Second,
		})
	}
	s.reload.LastReloadSuccessful = true
	return s, nil
}

// Reload asks the server to re-read the manifest (SIGHUP does this).
func (s *Server) Reload() {
	select {
	case s.hup <- struct{}{}:
	default:
	}
}

// DirectAddr and FacadeAddr are the bound addresses (after Run started).
func (s *Server) DirectAddr() net.Addr { return s.directLn.Addr() }

// FacadeAddr is the facade's bound address.
func (s *Server) FacadeAddr() net.Addr { return s.facadeLn.Addr() }

// Run binds both listeners, publishes the token and state, serves until
// ctx is cancelled, then shuts down gracefully. ready, when non-nil, is
// closed once both listeners accept connections.
func (s *Server) Run(ctx context.Context, ready chan<- struct{}) error {
	s.startedAt = s.opts.Now()
	host := config.BindHost(s.cfg.Server.Host)
	// Create the private directories now (so the manifest watcher can
	// watch index/ from the start) and tighten a home left readable by
	// others before anything is written into it.
	narrowed, err := s.home.Secure()
	if len(narrowed) > 0 {
		s.log.Warn("Made the home private: other users could read it", "paths", len(narrowed), "first", narrowed[0])
	}
	if errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("%w: %s is on a read-only file system and novad cannot make it private or create what it needs there (%v); %s", ErrReadOnlyHome, s.home.Root, err, readOnlyAdvice)
	}
	if err != nil {
		return fmt.Errorf("make %s private: %w", s.home.Root, err)
	}
	// One novad per home, and the ports before the token: a second novad,
	// on other ports or losing the bind, must not overwrite the token and
	// state of the one serving (reliability F11). Both are retried for a
	// while, so that a novad restarted right after a crash waits for the
	// old process to be gone.
	bindBy := time.Now().Add(s.opts.BindRetry)
	homeLock, err := s.lockHome(ctx, bindBy)
	if s.opts.WaitForHome {
		switch {
		case errors.Is(err, ErrAlreadyServing):
			homeLock, err = s.standBy(ctx, err, "Standing by: another novad serves this home; this one serves when it stops. "+
				"Two service jobs may run novad for this home (brew services and novactl service install): novactl service status and novactl doctor name them",
				"The other novad stopped; serving this home")
		case errors.Is(err, ErrReadOnlyHome):
			homeLock, err = s.standBy(ctx, err, "Waiting: this home is read-only and has no novad lock file; novad serves once it is writable",
				"The home is writable now; serving it")
		}
		// The ports are the other novad's until a moment ago.
		bindBy = time.Now().Add(s.opts.BindRetry)
	}
	if err != nil {
		return stoppedOr(ctx, err)
	}
	s.homeLock = homeLock
	// The reload loop, which may replace s.homeLock, has ended by the
	// time this runs.
	defer func() { s.homeLock.Release() }()
	if err := s.bind(ctx, host, bindBy); err != nil {
		return stoppedOr(ctx, err)
	}
	defer s.directLn.Close()
	defer s.facadeLn.Close()
	for _, ln := range []net.Listener{s.directLn, s.facadeLn} {
		if !isLoopbackPeer(ln.Addr().String()) {
			return fmt.Errorf("%w: listener bound to %s", ErrNonLoopback, ln.Addr())
		}
	}
	// The ports are ours: clients may talk to what answers on them.
	if l, ok := homeLock.(*lockfile.Lock); ok {
		l.Record("serve", s.opts.Now())
	}
	if s.token, err = secrets.Generate(); err != nil {
		return err
	}
	if s.readOnly {
		// The previous run's token stays on the volume; it does not
		// match this run's, so /encode refuses it (tokenFileServed).
		s.log.Warn("NOVA_HOME is read-only: search is served from it; /encode is refused, and no internal token or server state is written",
			"home", s.home.Root, "code", api.CodeAuthUnavailable)
	} else if err := secrets.WriteToken(s.home.TokenFile(), s.token); err != nil {
		// A full or read-only disk must not take search down: everything
		// search needs is already on disk. Only /encode, whose callers read
		// the token from this file, is refused until novad starts with
		// room to write it; a previous start's token must not pass for
		// this one's (a directory there is left alone).
		if fi, lerr := os.Lstat(s.home.TokenFile()); lerr == nil && !fi.IsDir() {
			os.Remove(s.home.TokenFile())
		}
		s.republishFailed = true // logged here; republishToken tries again
		s.log.Error("Cannot publish the internal token: search is served, /encode is refused until novad can write it",
			"code", api.CodeAuthUnavailable, "err", err)
	}
	s.work, s.cancelWork = context.WithCancel(context.Background())
	defer s.cancelWork()

	s.directSrv = s.httpServer(s.guard(boundAddr(s.directLn), s.directRoutes(), "direct"))
	s.facadeSrv = s.httpServer(s.guard(boundAddr(s.facadeLn), s.facadeRoutes(), "facade"))
	// Searches before the first load say "index-loading", not
	// "index-not-loaded": the reload loop clears this after its first try.
	s.loading.Store(true)
	s.writeState("")
	s.log.Info("Nova serving", "direct", s.directLn.Addr().String(), "facade", s.facadeLn.Addr().String(),
		"home", s.home.Root, "embedding", s.cfg.Embedding.Provider, "maxConcurrentSearches", s.cfg.Retrieval.MaxConcurrentSearches)

	serveErr := make(chan error, 2)
	for _, p := range []struct {
		srv *http.Server
		ln  net.Listener
	}{{s.directSrv, s.directLn}, {s.facadeSrv, s.facadeLn}} {
		// A flood of connections (each a goroutine and a descriptor)
		// waits at the cap instead of exhausting novad's descriptors
		// (reliability.md 1.3 item 3, G14).
		ln := netutil.LimitListener(p.ln, s.opts.MaxConnections)
		go func() {
			if err := p.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				serveErr <- err
			}
		}()
	}
	if ready != nil {
		close(ready)
	}

	var loops sync.WaitGroup
	loopCtx, stopLoops := context.WithCancel(ctx)
	loops.Add(1)
	go func() {
		defer loops.Done()
		s.reloadLoop(loopCtx)
	}()

	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-serveErr:
	case runErr = <-s.lockLost:
	}
	stopLoops()
	s.shutdown()
	loops.Wait()
	if !errors.Is(runErr, ErrHomeLockLost) {
		// The state file is the home's serving novad's; one that lost the
		// home's lock to another leaves it to that one.
		s.writeState(s.opts.Now().UTC().Format(time.RFC3339))
	}
	s.log.Info("Nova stopped")
	return runErr
}

// shutdown stops accepting, cancels in-flight searches, and waits for the
// listeners to drain within the grace period.
func (s *Server) shutdown() {
	s.cancelWork()
	ctx, cancel := context.WithTimeoutCause(context.Background(), s.opts.ShutdownGrace, errors.New("graceful shutdown timed out"))
	defer cancel()
	var wg sync.WaitGroup
	for _, srv := range []*http.Server{s.directSrv, s.facadeSrv} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := srv.Shutdown(ctx); err != nil {
				srv.Close()
			}
		}()
	}
	wg.Wait()
	// Search workers honour the cancelled context; wait for them so their
	// permits are released before the process exits.
	done := make(chan struct{})
	go func() { s.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(s.opts.ShutdownGrace):
		s.log.Warn("Searches still running at exit")
	}
}

// bind binds the direct and the facade listener. With WaitForHome (what
// the service definitions ask for), ports that another program or another
// home's novad still holds once by has passed are waited for, logged once,
// instead of returning ErrPortInUse: launchd and systemd answer that exit
// with a relaunch every 10 s, each with its burst of log lines, for as
// long as the other program keeps the port. While it waits it holds
// neither port: a listener that is bound but not served would leave
// clients hanging instead of refused.
func (s *Server) bind(ctx context.Context, host string, by time.Time) error {
	taken, err := s.bindOnce(ctx, host, by, false)
	if err == nil || !s.opts.WaitForHome || !errors.Is(err, ErrPortInUse) {
		return err
	}
	s.log.Warn("Waiting: a port of this home is in use by another program or another home's novad; novad serves once it is free. "+
		"novactl doctor says what answers there; or give this home other ports (server.port and facade.port in config.yaml)",
		"home", s.home.Root, "err", err.Error())
	t := time.NewTicker(portPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		// The taken port is tried first, so that the free one is not
		// bound and let go each round: a client, or this home's next
		// novad, could meet it bound for that moment.
		taken, err = s.bindOnce(ctx, host, time.Time{}, taken == s.cfg.Facade.Port)
		if err == nil {
			s.log.Info("The port is free now; serving", "home", s.home.Root)
			return nil
		}
		if !errors.Is(err, ErrPortInUse) {
			return err
		}
	}
}

// portPoll is how often a novad waiting for a port tries it again: the
// kernel tells no one when a port is let go, so this wait polls (the
// wait for the home's lock does not: see standBy).
const portPoll = time.Second

// bindOnce binds both listeners, retrying a taken port until by, or
// neither; facadeFirst binds the facade's port first. On failure it
// returns the port it could not bind.
func (s *Server) bindOnce(ctx context.Context, host string, by time.Time, facadeFirst bool) (failed int, err error) {
	ports := [2]int{s.cfg.Server.Port, s.cfg.Facade.Port}
	if facadeFirst {
		ports[0], ports[1] = ports[1], ports[0]
	}
	var lns [2]net.Listener
	for i, port := range ports {
		if lns[i], err = s.listen(ctx, host, port, by); err != nil {
			if i == 1 {
				lns[0].Close()
			}
			return port, err
		}
	}
	if facadeFirst {
		lns[0], lns[1] = lns[1], lns[0]
	}
	s.directLn, s.facadeLn = lns[0], lns[1]
	return 0, nil
}

// listen binds host:port. A port in use is retried until by, with a
// growing pause, each retry logged: a novad that was just killed (launchd
// and systemd restart it at once) can hold its ports for a moment while
// the kernel tears the old process down.
func (s *Server) listen(ctx context.Context, host string, port int, by time.Time) (net.Listener, error) {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	var ln net.Listener
	attempts, err := retryUntil(ctx, by, func() (bool, error) {
		var err error
		ln, err = (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
		if errors.Is(err, syscall.EADDRINUSE) {
			return false, fmt.Errorf("%w: %s (another novad may be running; novactl status shows it)", ErrPortInUse, addr)
		}
		if err != nil {
			return true, fmt.Errorf("listen on %s: %w", addr, err)
		}
		return true, nil
	}, func(attempt int, wait time.Duration) {
		s.log.Warn("Port in use; retrying the bind", "addr", addr, "attempt", attempt, "retryInMs", wait.Milliseconds())
	})
	if err == nil && attempts > 1 {
		s.log.Info("Bound after retrying", "addr", addr, "attempts", attempts)
	}
	return ln, err
}

// releaser is a held home lock.
type releaser interface{ Release() }

// acquireHome takes the home's novad lock once. On a read-only file
// system it takes an existing lock file's lock without writing it (and
// marks the server read-only); with no lock file there, clients could
// never tell that a novad serves the home, so it refuses with
// ErrReadOnlyHome. A lock another process holds is lockfile.ErrHeld.
func (s *Server) acquireHome() (releaser, error) {
	path := s.home.DaemonLock()
	// Recorded as starting until both ports are bound (Run): clients
	// send nothing to what answers on them before.
	l, err := lockfile.Acquire(path, paths.FileMode, lockfile.Starting, s.opts.Now())
	if err == nil {
		s.readOnly = false
		return l, nil
	}
	if !errors.Is(err, syscall.EROFS) {
		return nil, err
	}
	ro, rerr := lockReadOnly(path)
	switch {
	case rerr == nil:
		s.readOnly = true
		return ro, nil
	case errors.Is(rerr, lockfile.ErrHeld):
		return nil, rerr
	}
	return nil, fmt.Errorf("%w: %s is on a read-only file system and has no %s, which a novad holds to tell clients it serves the home (%v); %s",
		ErrReadOnlyHome, s.home.Root, path, rerr, readOnlyAdvice)
}

// lockHome takes the home's novad lock (retried as the bind is).
func (s *Server) lockHome(ctx context.Context, by time.Time) (releaser, error) {
	var l releaser
	_, err := retryUntil(ctx, by, func() (bool, error) {
		var err error
		l, err = s.acquireHome()
		if errors.Is(err, lockfile.ErrHeld) {
			return false, fmt.Errorf("%w: %v", ErrAlreadyServing, err)
		}
		return true, err
	}, func(attempt int, wait time.Duration) {
		s.log.Warn("Another novad holds this home; retrying", "attempt", attempt, "retryInMs", wait.Milliseconds())
	})
	return l, err
}

// standbySafetyPoll is how often a standing-by novad tries the home's
// lock when waiting for it in the kernel cannot tell that it may: the
// lock file removed or replaced under the novad serving the home (state/
// deleted), a read-only home without one (the volume made writable), a
// platform without file locks. A release or the holder's death wakes the
// standby at once (lockfile.Waiter): the home goes unserved for no more
// than a moment after the novad serving it stops.
const standbySafetyPoll = 30 * time.Second

// standBy waits until the home's lock can be taken and takes it, or ctx
// ends. why is what kept lockHome from it (another novad holds it, or the
// home is read-only without a lock file); waiting is logged once with why,
// not at every try, since a standby may last for days, and serving with
// done. Any other error ends the wait. It sleeps in the kernel while the
// lock is held, not polling it every second: a standby lasts as long as
// both service jobs stay installed, and woke a laptop each second.
func (s *Server) standBy(ctx context.Context, why error, waiting, done string) (releaser, error) {
	s.log.Warn(waiting, "home", s.home.Root, "err", why.Error())
	w := &lockfile.Waiter{Path: s.home.DaemonLock(), Every: s.standbyEvery}
	held := !errors.Is(why, ErrReadOnlyHome)
	for {
		if err := w.Wait(ctx, held); err != nil {
			return nil, err
		}
		if s.standbyTried != nil {
			s.standbyTried()
		}
		l, err := s.acquireHome()
		switch {
		case err == nil:
			s.log.Info(done, "home", s.home.Root)
			return l, nil
		case errors.Is(err, lockfile.ErrHeld):
			held = true
		case errors.Is(err, ErrReadOnlyHome):
			held = false
		default:
			return nil, err
		}
	}
}

// retryUntil calls try until it is done (its error then stands) or by has
// passed (the last error stands), pausing 50 ms, then twice as long each
// time up to a second, and telling waiting before each pause. It returns
// the number of attempts.
func retryUntil(ctx context.Context, by time.Time, try func() (done bool, err error), waiting func(attempt int, wait time.Duration)) (int, error) {
	pause := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		done, err := try()
		if done {
			return attempt, err
		}
		wait := min(pause, time.Until(by))
		if wait <= 0 {
			return attempt, err
		}
		waiting(attempt, wait)
		select {
		case <-ctx.Done():
			return attempt, ctx.Err()
		case <-time.After(wait):
		}
		pause = min(2*pause, time.Second)
	}
}

// stoppedOr returns nil when ctx was cancelled (a stop while retrying the
// bind is a clean stop), else err.
func stoppedOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func (s *Server) directPort() int { return int(boundAddr(s.directLn).Port()) }
func (s *Server) facadePort() int { return int(boundAddr(s.facadeLn).Port()) }

// boundAddr is the address ln listens on, an IPv4 one unmapped.
func boundAddr(ln net.Listener) netip.AddrPort {
	ap := ln.Addr().(*net.TCPAddr).AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}

// httpServer sets every timeout: slow-loris clients are cut off at the
// header timeout, and the write timeout sits above the 60 s search cap.
// net/http's own answer to "OPTIONS *" is turned off: it is given before
// any handler runs, so it skipped the guard (a 200 to any Host, Origin
// included, without the security headers); the guard refuses it now.
func (s *Server) httpServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:                      h,
		ConnState:                    idleWhenBusy(s.opts.MaxConnections),
		DisableGeneralOptionsHandler: true,
		ReadHeaderTimeout:            5 * time.Second,
		ReadTimeout:                  15 * time.Second,
		WriteTimeout:                 (api.MaxServerBudgetMs + 10_000) * time.Millisecond,
		IdleTimeout:                  60 * time.Second,
		MaxHeaderBytes:               16 << 10,
		ErrorLog:                     slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		BaseContext:                  func(net.Listener) context.Context { return context.Background() },
	}
}

// idleWhenBusy returns a ConnState hook that closes a connection as it
// goes idle (kept alive after its request) while the listener's
// connections fill three quarters of its cap (MaxConnections). Idle
// connections otherwise hold the cap's slots for the whole idle timeout:
// a local process that opened as many as the cap, sent a request on
// each and left them open kept every other client waiting, and could
// renew them at will. A client whose connection is closed so dials again.
func idleWhenBusy(limit int) func(net.Conn, http.ConnState) {
	var open atomic.Int64
	busy := int64(max(1, limit*3/4))
	return func(c net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		case http.StateIdle:
			if open.Load() >= busy {
				_ = c.Close()
			}
		}
	}
}

// writeState publishes server-state.json (no secrets) atomically. On a
// read-only home it writes nothing: Run logged once that no state is
// written there, and each attempt (at start, at every load, at stop)
// would only warn again.
func (s *Server) writeState(stoppedAt string) {
	if s.readOnly {
		return
	}
	gen := ""
	if cur := s.current.Load(); cur != nil {
		gen = cur.runID()
	}
	st := api.ServerState{
		PID: os.Getpid(), Host: s.cfg.Server.Host, DirectPort: s.directPort(), FacadePort: s.facadePort(),
		StartedAt: s.startedAt.UTC().Format(time.RFC3339), Version: version.Get().Version, Generation: gen,
		TokenFile: s.home.TokenFile(), StoppedAt: stoppedAt,
	}
	b, _ := json.MarshalIndent(st, "", "  ")
	if err := atomicfile.Write(s.home.ServerState(), append(b, '\n'), paths.FileMode); err != nil {
		s.log.Warn("Cannot write server state", errAttr(err))
	}
}
