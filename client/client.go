// Package client is the typed Go client of novad's facade and direct
// server. novactl, the TUI and the MCP server never build HTTP requests by
// hand: they call this package, which turns transport failures and status
// codes into typed errors with actionable hints.
package client

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/paths"
)

// Client talks to one novad. Its zero value is not usable; use New or
// ForConfig. It is safe for concurrent use.
type Client struct {
	// FacadeURL and DirectURL are base URLs, e.g. http://127.0.0.1:3036.
	FacadeURL string
	DirectURL string
	// homeLock is the novad lock of the home the client was made for
	// (ForConfig); empty for a client given its URLs.
	homeLock string
}

// New returns a client for the given base URLs.
func New(facadeURL, directURL string) *Client {
	return &Client{FacadeURL: facadeURL, DirectURL: directURL}
}

// pool carries the requests of every Client in the process. The
// long-lived callers (novactl mcp, the TUI's searches and status polls)
// make a Client for each call, to follow a novad restarted on other
// ports: with a transport each, every call left its connections (a
// socket at each end, and their goroutines) open until novad's idle
// timeout, a minute later, hundreds of them under an agent's tool calls.
// Shared, the next call reuses them. A connection is keyed by its
// address only and carries no token or home, so sharing it between
// Clients hands nothing of one home's to another; and every request
// still checks first that this home's novad holds the port (do).
var pool = &http.Client{Transport: &http.Transport{
	Proxy: nil, // loopback only: never through an HTTP_PROXY
	// A novad restarted on other ports leaves no idle connection
	// behind: its exit closes them, and those to ports no one serves
	// any more are closed after this idle time, shorter than novad's
	// (a minute) so that the client closes first, never under a
	// request it sends.
	IdleConnTimeout:     30 * time.Second,
	MaxIdleConns:        16,
	MaxIdleConnsPerHost: 4,
}}

// ForConfig returns a client for the novad of cfg: the ports it published
// in server-state.json when it is running for this home, else the
// configured ones. A state file copied with a home (cp -a) names another
// home's novad: it is believed only while a novad holds this home's lock
// and names this home's token file. And only when that novad wrote it:
// until the novad holding the lock has written its own (it binds its
// ports first), the file is a previous run's, killed with -9, whose
// ports another program may hold now. The host is the state's too:
// novad reads config.yaml when it starts, and serves where it bound
// after the file is edited.
func ForConfig(cfg config.Config) *Client {
	host := config.BindHost(cfg.Server.Host)
	direct, facade := cfg.Server.Port, cfg.Facade.Port
	if st, err := ReadState(cfg.Home); err == nil && st.StoppedAt == "" && st.DirectPort > 0 &&
		filepath.Clean(st.TokenFile) == filepath.Clean(cfg.Home.TokenFile()) && lockfile.Held(cfg.Home.DaemonLock()) &&
		lockfile.ReadHolder(cfg.Home.DaemonLock()).PID == st.PID {
		direct, facade = st.DirectPort, st.FacadePort
		if config.IsLoopbackHost(st.Host) {
			host = config.BindHost(st.Host)
		}
	}
	c := New(baseURL(host, facade), baseURL(host, direct))
	c.homeLock = cfg.Home.DaemonLock()
	return c
}

func baseURL(host string, port int) string {
	return "http://" + net.JoinHostPort(host, strconv.Itoa(port))
}

// maxStateSize bounds the server-state.json ReadState accepts: novad
// writes a few hundred bytes.
const maxStateSize = 1 << 20

// ReadState reads novad's server-state.json (a missing file's error wraps
// fs.ErrNotExist). Anything but a regular file is refused without waiting
// on it (paths.ReadRegular).
func ReadState(home paths.Home) (*api.ServerState, error) {
	b, _, err := paths.ReadRegular(home.ServerState(), maxStateSize)
	if err != nil {
		return nil, err
	}
	var st api.ServerState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("read %s: %w", home.ServerState(), err)
	}
	return &st, nil
}

// NotRunningError means this home's novad does not answer at the
// address: nothing answers there (novad is not running, or runs with other
// ports), or, when Other is set, something else does.
type NotRunningError struct {
	URL string
	// Other is set when no novad holds this home's lock but something
	// answers at URL: another home's novad, or another program.
	Other bool
	// Starting is set when a novad (pid PID, 0 when unknown) holds this
	// home's lock but has not bound its ports yet: what answers at URL
	// (Other) is not it, and starting another novad would not help.
	Starting bool
	PID      int
	// StateGone is set with Other when the home has no state/ folder,
	// where novad keeps its lock: one deleted while novad ran takes the
	// lock file with it, and what answers at URL may then be this home's
	// novad, which locks the home again at its next poll (30 s).
	StateGone bool
}

// Is reports whether target is api.ErrNotRunning and nothing answered (not
// Other: starting this home's novad would not help there).
func (e *NotRunningError) Is(target error) bool { return target == api.ErrNotRunning && !e.Other }

func (e *NotRunningError) Error() string {
	novad := "novad"
	if e.PID > 0 {
		novad = fmt.Sprintf("novad (pid %d)", e.PID)
	}
	switch {
	case e.Starting && e.Other:
		return fmt.Sprintf("%s is starting for this home but waits for its ports: what answers at %s is another program or another home's novad, and nothing was sent to it; stop that program, or give this home other ports (server.port and facade.port in config.yaml) and restart novad", novad, e.URL)
	case e.Starting:
		return fmt.Sprintf("%s is starting for this home and has not bound its ports yet; try again in a moment (novactl status says when it serves)", novad)
	case e.Other && e.StateGone:
		return fmt.Sprintf("no novad holds this NOVA_HOME's lock, and its state/ folder, which keeps the lock, is missing: if state/ was deleted while this home's novad ran, that novad answers at %s and locks the home again within 30 s (try again then); otherwise what answers there is another home's novad or another program. Nothing was sent to it", e.URL)
	case e.Other:
		return fmt.Sprintf("no novad serves this NOVA_HOME: what answers at %s is another home's novad or another program, and nothing was sent to it; give this home other ports (server.port and facade.port in config.yaml) and start its novad", e.URL)
	}
	if u, err := neturl.Parse(e.URL); err == nil && u.Port() == "0" {
		// Port 0 in config.yaml: novad picks its ports when it starts,
		// and with none running there is no address to name.
		return "novad is not running for this NOVA_HOME; start it with `novad`, `make run`, or `novactl service install`"
	}
	return fmt.Sprintf("novad is not running (nothing answers at %s); start it with `novad`, `make run`, or `novactl service install`", e.URL)
}

// HTTPError is a response with an unexpected status.
type HTTPError struct {
	Status int
	Code   string
	Body   []byte
	// URL is the base URL that answered, when it may not be novad's
	// (a search sent where --facade-url says); empty for novad.
	URL string
}

func (e *HTTPError) Error() string {
	who := cmp.Or(e.URL, "novad")
	if e.Code != "" {
		return fmt.Sprintf("%s answered %d %s", who, e.Status, e.Code)
	}
	return fmt.Sprintf("%s answered %d", who, e.Status)
}

// IsNotRunning reports whether err means novad is not running.
func IsNotRunning(err error) bool {
	var nr *NotRunningError
	return errors.As(err, &nr)
}

func (c *Client) do(ctx context.Context, method, url string, body any) (int, []byte, error) {
	if c.homeLock != "" {
		// novad holds its home's lock from before it binds its ports
		// until it exits, so whatever answers here serves another home
		// (a second home left on the default ports): its memory is not
		// this home's, and this home's queries are not for it. Until it
		// has bound them (it waits while another program holds one),
		// what answers there is that program, maybe another user's.
		if lockfile.Free(c.homeLock) {
			other := answers(ctx, url)
			_, err := os.Lstat(filepath.Dir(c.homeLock))
			return 0, nil, &NotRunningError{URL: url, Other: other, StateGone: other && errors.Is(err, fs.ErrNotExist)}
		}
		if h := lockfile.ReadHolder(c.homeLock); h.IsStarting() {
			return 0, nil, &NotRunningError{URL: url, Other: answers(ctx, url), Starting: true, PID: h.PID}
		}
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := pool.Do(req)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return 0, nil, &NotRunningError{URL: url}
		}
		if dropped(ctx, err) {
			return 0, nil, &DroppedError{URL: url, Err: err}
		}
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := readBody(resp)
	if dropped(ctx, err) {
		return resp.StatusCode, nil, &DroppedError{URL: url, Err: err}
	}
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("read response: %w", err)
	}
	return resp.StatusCode, b, nil
}

// DroppedError means novad closed the connection before its answer was
// complete: it stopped, restarted or crashed during the request.
type DroppedError struct {
	URL string
	Err error
}

func (e *DroppedError) Error() string {
	return fmt.Sprintf("novad closed the connection before its answer was complete (%s): it stopped or restarted during the request; run it again, and if it happens again, novactl status says whether novad runs", e.URL)
}

// Unwrap returns the transport's error.
func (e *DroppedError) Unwrap() error { return e.Err }

// dropped reports whether err is the connection ending under a request
// that was not cancelled.
func dropped(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() == nil &&
		(errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET))
}

// maxResponseBytes bounds what the client reads of one response: a
// search envelope is tens of kilobytes.
const maxResponseBytes = 64 << 20

// errTooLarge is an answer longer than maxResponseBytes: cut at the
// limit it would be reported as invalid JSON.
var errTooLarge = fmt.Errorf("the answer is larger than the %d MB novad's ever are: is it novad that answers? novactl status names novad's ports", maxResponseBytes>>20)

// readBody reads a response body, at most maxResponseBytes of it. A body
// whose length was announced (novad announces every one) is read into a
// buffer of that size: growing one from 512 bytes read a search envelope
// of tens of kilobytes in a dozen pieces, a system call each.
func readBody(resp *http.Response) ([]byte, error) {
	if resp.ContentLength > maxResponseBytes {
		return nil, errTooLarge
	}
	if n := resp.ContentLength; n >= 0 {
		b := make([]byte, n)
		if _, err := io.ReadFull(resp.Body, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err == nil && len(b) > maxResponseBytes {
		return nil, errTooLarge
	}
	return b, err
}

// answers reports whether something accepts connections at the address
// of url, without sending it anything.
func answers(ctx context.Context, url string) bool {
	u, err := neturl.Parse(url)
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return false
	}
	_ = conn.Close()
	return true
}

// Search calls POST /api/rag/external/search. Every status the facade
// answers with an envelope (200, 400, 422, 429, 503) returns the decoded
// envelope; err is set only when no envelope came back.
func (c *Client) Search(ctx context.Context, body api.SearchBody) (*api.SearchResponse, int, error) {
	status, b, err := c.do(ctx, http.MethodPost, c.FacadeURL+api.PathFacadeSearch, body)
	if err != nil {
		return nil, status, err
	}
	var resp api.SearchResponse
	valid := utf8.Valid(b)
	if valid && decodeResponse(b, &resp) == nil && resp.SchemaVersion == 2 {
		return &resp, status, nil
	}
	// What was wrong is worked out only when something was: a valid
	// envelope is read once. A refusal that is no envelope is an HTTP
	// error whatever its body (an HTML error page is not "invalid
	// JSON"), as the contract's CLI reports it.
	if status != http.StatusOK {
		var e api.Error
		_ = json.Unmarshal(b, &e)
		return nil, status, fmt.Errorf("%w%s", &HTTPError{Status: status, Code: e.Code, Body: b, URL: c.FacadeURL}, notSearchHint)
	}
	reason := api.ReasonCLIInvalidSchema
	switch {
	case !valid:
		reason = api.ReasonCLIInvalidEncoding
	case !json.Valid(b):
		reason = api.ReasonCLIInvalidJSON
	}
	return nil, status, fmt.Errorf("%w%s", &EnvelopeError{Reason: reason, Status: status, URL: c.FacadeURL}, notSearchHint)
}

// notSearchHint ends the error of a search whose answer is no search
// envelope: most often the URL is not novad's facade (its direct port,
// another program), or the wrong novad.
const notSearchHint = ", not a search response: is it novad's facade? novactl status names novad's ports, and novactl doctor says what is wrong"

// EnvelopeError is a search response that is not a valid envelope.
type EnvelopeError struct {
	// Reason is the contract's CLI reason code.
	Reason string
	Status int
	// URL is the base URL that answered.
	URL string
}

func (e *EnvelopeError) Error() string {
	what := "JSON that is not a search envelope"
	switch e.Reason {
	case api.ReasonCLIInvalidEncoding:
		what = "text that is not UTF-8"
	case api.ReasonCLIInvalidJSON:
		what = "a body that is not JSON"
	}
	return fmt.Sprintf("%s answered %d with %s", cmp.Or(e.URL, "novad"), e.Status, what)
}

// FacadeHealth calls GET /api/rag/external/health.
func (c *Client) FacadeHealth(ctx context.Context) (*api.FacadeHealth, error) {
	var h api.FacadeHealth
	return &h, c.getJSON(ctx, c.FacadeURL+api.PathFacadeHealth, &h)
}

// Health calls the direct server's GET /health.
func (c *Client) Health(ctx context.Context) (*api.Health, error) {
	var h api.Health
	return &h, c.getJSON(ctx, c.DirectURL+api.PathHealth, &h)
}

// Stats calls the direct server's GET /stats.
func (c *Client) Stats(ctx context.Context) (*api.Stats, error) {
	var s api.Stats
	return &s, c.getJSON(ctx, c.DirectURL+api.PathStats, &s)
}

// Contract calls GET /api/rag/external/contract.
func (c *Client) Contract(ctx context.Context) (*api.Contract, error) {
	var ct api.Contract
	return &ct, c.getJSON(ctx, c.FacadeURL+api.PathFacadeContract, &ct)
}

func (c *Client) getJSON(ctx context.Context, url string, v any) error {
	status, b, err := c.do(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		var e api.Error
		_ = json.Unmarshal(b, &e)
		return &HTTPError{Status: status, Code: e.Code, Body: b}
	}
	return decodeResponse(b, v)
}

// decodeResponse reads a body novad sent. It uses goccy/go-json, which
// decodes what encoding/json does, four times as fast: a search envelope
// is tens of kilobytes, and decoding it took the standard decoder 0.6 ms,
// a fifth of a search's round trip. Request bodies and other documents
// stay with encoding/json.
//
// The decoded strings without an escape are b's bytes, not copies: an
// envelope holds a thousand and more (ids, texts, score names), and
// copying each was half of the decoding's time and most of its garbage.
// So b must be the response's own and never written again, as readBody's
// buffer is; a string kept keeps the body it came in.
func decodeResponse(b []byte, v any) error {
	return gojson.UnmarshalWithOption(b, v, gojson.DecodeNoCopyString())
}

// Budget is the client side of the contract's follow-up loop: one
// monotonic 90-second deadline and at most three searches, shared by the
// calls made through it. Each call sends the remaining budget.
type Budget struct {
	start    time.Time
	total    time.Duration
	maxCalls int
	calls    int
}

// NewBudget returns a budget of total time and maxCalls searches (clamped
// to 1..3).
func NewBudget(total time.Duration, maxCalls int) *Budget {
	return &Budget{start: time.Now(), total: total, maxCalls: max(1, min(3, maxCalls))}
}

// ErrBudgetExhausted means the loop used its calls or its time.
var ErrBudgetExhausted = errors.New(api.ReasonCLIBudgetExhausted)

// Next reserves one call and returns the remaining milliseconds to send.
func (b *Budget) Next() (int, error) {
	remaining := b.total - time.Since(b.start)
	if b.calls >= b.maxCalls || remaining <= 0 {
		return 0, ErrBudgetExhausted
	}
	b.calls++
	return max(1, int(remaining.Milliseconds())), nil
}

// Calls is the number of calls reserved so far.
func (b *Budget) Calls() int { return b.calls }

// MaxCalls is the call limit.
func (b *Budget) MaxCalls() int { return b.maxCalls }

// Remaining is the time left.
func (b *Budget) Remaining() time.Duration { return max(0, b.total-time.Since(b.start)) }

// Total is the whole budget.
func (b *Budget) Total() time.Duration { return b.total }
