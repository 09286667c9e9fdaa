package search

import (
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/index/generation"
)

// controller accumulates what the multi-pass controller did.
type controller struct {
	// final is the answer so far: the first topK distinct candidates of
	// the fused list; dedupe reports what was folded and how many were
	// distinct, quality is the gate's verdict on final.
	final         []scored
	dedupe        *api.DedupeReport
	quality       api.Quality
	stopReason    string
	degraded      bool
	timeoutStage  string
	batched       *bool
	embedding     []api.EmbeddingTelemetry
	passTelemetry []api.PassTelemetry
	passReports   []api.PassReport
}

func (c *controller) report(q *query, qual api.Quality, candidates, returned int, elapsed time.Duration, g *generation.Generation, channels []api.ChannelReport) api.Controller {
	passesRun := make([]string, 0, len(c.passReports)+2)
	for _, p := range c.passReports {
		passesRun = append(passesRun, p.ID)
	}
	passesRun = append(passesRun, "fusion-rerank-dedupe", "quality-gate")
	passes := append(c.passReports,
		api.PassReport{ID: "fusion-rerank-dedupe", CandidateCount: intPtr(candidates), Returned: intPtr(returned)},
		api.PassReport{ID: "quality-gate", Status: qual.Status, NeedsMoreEvidence: &qual.NeedsMoreEvidence})
	elapsedMs := ms(elapsed)
	slow := elapsedMs > api.SlowQueryThresholdMs
	budget := int(time.Until(q.deadline).Milliseconds() + elapsed.Milliseconds())
	batched := c.batched
	if batched == nil {
		f := false
		batched = &f
	}
	return api.Controller{
		SchemaVersion: 1, Mode: "bounded-deterministic-multi-pass", ServerSide: true,
		ExecutionPolicy: "baseline-first-adaptive-bounded", PassesRun: passesRun, Passes: passes,
		QualityStatus: qual.Status, NeedsMoreEvidence: qual.NeedsMoreEvidence, LatencyBudgetMs: budget,
		ElapsedMs: elapsedMs, SlowQuery: &slow, SlowQueryThresholdMs: api.SlowQueryThresholdMs,
		ChunkCount: g.Count(), StopReason: c.stopReason, PassTelemetry: c.passTelemetry,
		EmbeddingTelemetry: c.embedding, BatchedOptionalEmbeddings: batched,
		EmbeddingDimension: g.Meta.EmbeddingProfile.Dimension, Channels: channels,
		Degraded: c.degraded, TimeoutStage: c.timeoutStage,
	}
}
