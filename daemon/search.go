package daemon

import (
	"context"
	"errors"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/nova-recall/nova/api"
)

// capacityWait bounds how long a search waits for a permit before 429.
const capacityWait = 250 * time.Millisecond

// minServerBudget is the smallest budget a search is started with.
const minServerBudget = 100 * time.Millisecond

// configuredBudget is min(configured budget, 60 s).
func (s *Server) configuredBudget() time.Duration {
	return min(time.Duration(s.cfg.Retrieval.LatencyBudgetSeconds)*time.Second, api.MaxServerBudgetMs*time.Millisecond)
}

// serverBudget is the budget of one search: the configured one, lowered
// (never raised) by the caller's latencyBudgetMs, at least 100 ms.
func (s *Server) serverBudget(req api.SearchRequest) time.Duration {
	b := s.configuredBudget()
	if req.LatencyBudgetMs > 0 {
		b = min(b, time.Duration(req.LatencyBudgetMs)*time.Millisecond)
	}
	return max(b, minServerBudget)
}

func (s *Server) handleDirectSearch(w http.ResponseWriter, r *http.Request) error {
	arrival := time.Now()
	req, status, resp := s.decodeSearch(w, r, api.Direct)
	if resp != nil {
		writeJSON(w, status, resp)
		return nil
	}
	resp, status = s.runSearch(r, s.current.Load(), req, s.serverBudget(req), arrival)
	writeSearch(w, status, resp)
	return nil
}

func (s *Server) handleFacadeSearch(w http.ResponseWriter, r *http.Request) error {
	arrival := time.Now()
	req, status, resp := s.decodeSearch(w, r, api.Facade)
	// The status, the contract and the search are of one generation,
	// taken once the body is in: a swap while a client sends it must not
	// leave the answer naming another generation than its results.
	cur, _, in, mismatch := s.servedStatus()
	rs := s.ragStatus(cur, in, mismatch)
	if resp != nil {
		resp.ExternalAgentContract = s.contract(cur)
		resp.RagStatus = &rs
		writeJSON(w, status, resp)
		return nil
	}
	// The facade honours the caller's monotonic budget: the total is the
	// server cap plus transport grace, lowered to remainingBudgetMs.
	serverCap := s.serverBudget(req)
	total := serverCap + api.FacadeTransportGraceMs*time.Millisecond
	if req.RemainingBudgetMs != nil {
		total = min(total, time.Duration(*req.RemainingBudgetMs)*time.Millisecond)
	}
	budget := &api.FacadeBudget{Policy: "monotonic-total-budget", TotalBudgetMs: int(total.Milliseconds()), ServerBudgetCapMs: int(serverCap.Milliseconds())}
	// finish attaches what every facade answer but a 400 or 500 carries,
	// facadeBudget included (conformance 5.3), unavailable ones too.
	finish := func(resp *api.SearchResponse) {
		elapsed := time.Since(arrival)
		budget.ElapsedMs = float64(elapsed.Microseconds()) / 1000
		budget.RemainingBudgetMs = max(0, int((total - elapsed).Milliseconds()))
		resp.FacadeBudget = budget
		resp.RetrievalController.FacadeBudget = budget
		resp.ExternalAgentContract = s.contract(cur)
		resp.RagStatus = &rs
	}
	// An exhausted budget is refused first, before the status decides
	// anything, as upstream refuses it before its readiness probe.
	if total < api.MinBudgetMs*time.Millisecond {
		resp := api.Unavailable(req.Query, req.TopK, api.ReasonBudgetExhausted)
		resp.Error = "insufficient remaining search budget"
		finish(resp)
		resp.FacadeBudget.RemainingBudgetMs = max(0, int(total.Milliseconds()))
		writeJSON(w, http.StatusOK, resp)
		return nil
	}
	// Status-gated, as the facade's health: while search is unavailable
	// the reason is the status ("missing" before any index), and no
	// search runs.
	if !rs.SearchAvailable {
		resp := api.Unavailable(req.Query, req.TopK, rs.Freshness.Status)
		finish(resp)
		writeJSON(w, http.StatusOK, resp)
		return nil
	}
	resp, status = s.runSearch(r, cur, req, min(serverCap, total-50*time.Millisecond), arrival)
	finish(resp)
	writeSearch(w, status, resp)
	return nil
}

// writeSearch writes a search envelope. A refusal for capacity says when
// to come back: the permits free up within the searches' budgets, and a
// client that retries at once only adds to the queue.
func writeSearch(w http.ResponseWriter, status int, resp *api.SearchResponse) {
	if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, status, resp)
}

// decodeSearch reads and validates a search body. On failure it returns
// the status and the full envelope to answer with.
func (s *Server) decodeSearch(w http.ResponseWriter, r *http.Request, surface api.Surface) (api.SearchRequest, int, *api.SearchResponse) {
	fail := func(status int, reason, code, query string, topK int) (api.SearchRequest, int, *api.SearchResponse) {
		resp := api.Unavailable(query, topK, reason)
		resp.Error = code
		return api.SearchRequest{}, status, resp
	}
	if e := requireJSON(r); e != nil {
		return fail(e.Status, api.ReasonInvalidRequest, e.Code, "", s.cfg.Retrieval.TopK)
	}
	body, e := readBody(w, r, api.MaxSearchBodyBytes)
	if e != nil {
		return fail(e.Status, api.ReasonInvalidRequest, e.Code, "", s.cfg.Retrieval.TopK)
	}
	req, rerr := api.DecodeSearchRequest(body, surface, s.cfg.Retrieval.TopK)
	if rerr != nil {
		reason := api.ReasonInvalidRequest
		switch {
		case rerr.Reason == api.ReasonQueryRequired:
			reason = api.ReasonQueryRequired
		case rerr.Field != "":
			reason = api.ReasonInvalidFieldPrefix + rerr.Field
		}
		resp := api.Unavailable(rerr.Query, rerr.TopK, reason)
		resp.Error = rerr.Error()
		if rerr.Reason == api.ReasonQueryRequired {
			resp.Error = api.ReasonQueryRequired
		}
		return req, rerr.Status, resp
	}
	return req, 0, nil
}

type outcome struct {
	resp *api.SearchResponse
	err  error
}

// runSearch runs one search on cur (nil when nothing is served) under
// the capacity limit and the budget. The budget counts from arrival,
// queue wait included. A search that overruns answers 503 at the
// deadline while its worker, which honours the cancelled context,
// finishes in the background; the permit stays held until the worker
// really ends, and workerTelemetry says so. cur may be replaced while the
// search waits for a permit: it stays mapped while the search holds it
// (see retire), and the answer stays of one generation; only one
// withdrawn with nothing in its place is not searched.
func (s *Server) runSearch(r *http.Request, cur *served, req api.SearchRequest, budget time.Duration, arrival time.Time) (*api.SearchResponse, int) {
	deadline := arrival.Add(budget)
	budgetMs := int(budget.Milliseconds())
	telemetry := func(state string, held bool) *api.WorkerTelemetry {
		return &api.WorkerTelemetry{WorkerState: state, HardCancelled: false, CapacityPermitHeld: held,
			LatencyBudgetMs: budgetMs, ElapsedMs: float64(time.Since(arrival).Microseconds()) / 1000}
	}
	degraded := func(status int, reason, code, state string, held bool, stop string) (*api.SearchResponse, int) {
		resp := api.Unavailable(req.Query, req.TopK, reason)
		resp.Error = code
		t := telemetry(state, held)
		resp.WorkerTelemetry = t
		rc := &resp.RetrievalController
		rc.WorkerTelemetry = t
		rc.LatencyBudgetMs = budgetMs
		rc.ElapsedMs = t.ElapsedMs
		if stop != "" {
			rc.ExecutionPolicy = "baseline-first-adaptive-bounded"
			rc.StopReason, rc.TimeoutStage, rc.Degraded = stop, "local-worker", true
		}
		return resp, status
	}

	wait := time.NewTimer(min(capacityWait, max(0, time.Until(deadline))))
	defer wait.Stop()
	select {
	case s.permits <- struct{}{}:
	case <-wait.C:
		return degraded(http.StatusTooManyRequests, api.ReasonCapacityExhausted, "busy", api.WorkerNotStarted, false, "")
	case <-r.Context().Done():
		return degraded(http.StatusServiceUnavailable, api.ReasonCancelled, "cancelled", api.WorkerNotStarted, false, "")
	}
	release := func() { <-s.permits }

	if cur != nil && cur.retired.Load() && s.current.Load() == nil {
		// Withdrawn while this search waited: nothing intact is served
		// now, its files having changed in place (see reloadOnce), and
		// reading them could give other bytes.
		cur = nil
	}
	if reason := s.availability(cur); reason != "" {
		release()
		resp := api.Unavailable(req.Query, req.TopK, reason)
		resp.WorkerTelemetry = telemetry(api.WorkerFinished, false)
		resp.RetrievalController.WorkerTelemetry = resp.WorkerTelemetry
		return resp, http.StatusOK
	}
	ctx, cancel := context.WithDeadline(s.work, deadline)
	done := make(chan outcome, 1)
	s.inflight.Add(1)
	go func() {
		defer s.inflight.Done()
		defer release()
		defer cancel()
		defer func() {
			if v := recover(); v != nil {
				s.log.Error("Search panic", "panic", panicSummary(v))
				done <- outcome{err: errors.New("search panic")}
				// Damaged files are the likely cause: a generation file
				// truncated or rewritten under its mapping.
				select {
				case s.checkNow <- struct{}{}:
				default:
				}
			}
		}()
		// The generation's files are memory-mapped: reading one that was
		// truncated under us faults, which must fail this search, not
		// kill novad.
		debug.SetPanicOnFault(true)
		// Counted for retire: the last search on a replaced snapshot
		// has its files unmapped.
		cur.searches.Add(1)
		defer s.searchDone(cur)
		resp, err := s.engine.Search(ctx, cur.snap, req)
		done <- outcome{resp, err}
	}()

	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case out := <-done:
		switch {
		case out.err == nil:
			out.resp.WorkerTelemetry = telemetry(api.WorkerFinished, false)
			out.resp.RetrievalController.WorkerTelemetry = out.resp.WorkerTelemetry
			// The engine sees only the deadline and rebuilds the budget
			// from it, short by the queue wait and rounding (59999 for
			// 60000); the budget is the one decided here.
			out.resp.RetrievalController.LatencyBudgetMs = budgetMs
			return out.resp, http.StatusOK
		case errors.Is(out.err, context.DeadlineExceeded):
			return degraded(http.StatusServiceUnavailable, api.ReasonTimeout, "timeout", api.WorkerFinished, false, "local-worker-timeout")
		case errors.Is(out.err, context.Canceled):
			return degraded(http.StatusServiceUnavailable, api.ReasonCancelled, "cancelled", api.WorkerFinished, false, "")
		default:
			s.log.Error("Search failed", errAttr(out.err))
			resp := api.Unavailable(req.Query, req.TopK, api.ReasonInternal)
			resp.Error = "internal"
			return resp, http.StatusInternalServerError
		}
	case <-timer.C:
		return degraded(http.StatusServiceUnavailable, api.ReasonTimeout, "timeout", api.WorkerRunningAfterTimeout, true, "local-worker-timeout")
	case <-r.Context().Done():
		cancel()
		return degraded(http.StatusServiceUnavailable, api.ReasonCancelled, "cancelled", api.WorkerRunningAfterCancel, true, "")
	case <-s.work.Done():
		return degraded(http.StatusServiceUnavailable, api.ReasonCancelled, "cancelled", api.WorkerRunningAfterCancel, true, "")
	}
}
