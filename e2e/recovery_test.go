package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/contracttest"
	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/manifest"
)

// The recovery tests: a generation that is corrupt, truncated or missing
// when novad starts, or damaged while it serves, is noticed, and novad
// falls back to the newest intact kept generation and says so in its log,
// /health, the facade's health and doctor. Every check goes through the
// real binaries, real files and real HTTP.

// zebra is a record only the second generation holds.
const zebra = `{"id":"zebra-1","text":"A zebra crossing incident blocked the deploy pipeline for an hour.","date":"2026-11-29","agent":"codex","project":"nova"}`

// twoGenerations syncs the sample memory (older), adds the zebra record
// and syncs again (active). It returns the two run ids.
func twoGenerations(t *testing.T, h *novatest.Home) (older, active string) {
	t.Helper()
	h.Sync()
	older = activeRunID(t, h)
	f, err := os.OpenFile(filepath.Join(h.Data, "records.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	novatest.Must(t, err)
	fmt.Fprintln(f, zebra)
	novatest.Must(t, f.Close())
	h.Sync()
	active = activeRunID(t, h)
	if older == active {
		t.Fatal("the second sync did not make a new generation")
	}
	return older, active
}

func activeRunID(t *testing.T, h *novatest.Home) string {
	t.Helper()
	m, _, err := manifest.Read(filepath.Join(h.Dir, "index", "manifest.json"))
	novatest.Must(t, err)
	return m.RunID
}

func generationDir(h *novatest.Home, runID string) string {
	return filepath.Join(h.Dir, "index", "generations", runID)
}

// damage is one way a generation's files get hurt.
type damage struct {
	name string
	// keepsSizeAndTime: only a full checksum can notice it.
	keepsSizeAndTime bool
	do               func(t *testing.T, dir string)
}

var damages = []damage{
	{name: "truncated", do: func(t *testing.T, dir string) {
		p := filepath.Join(dir, "sources.json")
		fi, err := os.Stat(p)
		novatest.Must(t, err)
		novatest.Must(t, os.Truncate(p, fi.Size()/2))
	}},
	{name: "bit flipped", keepsSizeAndTime: true, do: func(t *testing.T, dir string) {
		// Rot on disk: the same size and modification time, one bit off.
		p := filepath.Join(dir, "build-report.json")
		fi, err := os.Stat(p)
		novatest.Must(t, err)
		b, err := os.ReadFile(p)
		novatest.Must(t, err)
		b[len(b)/2] ^= 0x04
		novatest.Must(t, os.Chmod(p, 0o600))
		novatest.Must(t, os.WriteFile(p, b, 0o600))
		novatest.Must(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
	}},
	{name: "missing", do: func(t *testing.T, dir string) {
		novatest.Must(t, os.RemoveAll(dir))
	}},
}

func directHealth(t *testing.T, d *novatest.Daemon) api.Health {
	t.Helper()
	var h api.Health
	r := do(t, http.MethodGet, d.Direct+api.PathHealth, "", nil)
	novatest.Must(t, json.Unmarshal(r.body, &h))
	return h
}

// facadeHealth returns the facade's health after checking it against the
// contract's schema.
func facadeHealth(t *testing.T, d *novatest.Daemon) api.FacadeHealth {
	t.Helper()
	r := do(t, http.MethodGet, d.Facade+api.PathFacadeHealth, "", nil)
	if err := contracttest.Validate(contracttest.FacadeHealth, r.body, false); err != nil {
		t.Fatalf("facade health does not match the schema: %v\n%s", err, r.body)
	}
	var h api.FacadeHealth
	novatest.Must(t, json.Unmarshal(r.body, &h))
	return h
}

// served searches for the zebra record and returns the generation that
// answered, whether search was available and whether the zebra was found.
func served(t *testing.T, d *novatest.Daemon) (gen string, available, zebraFound bool) {
	t.Helper()
	r := search(t, d.Facade, `{"query":"zebra crossing incident"}`)
	var resp api.SearchResponse
	novatest.Must(t, json.Unmarshal(r.body, &resp))
	for _, res := range resp.Results {
		zebraFound = zebraFound || res.SourceID == "zebra-1"
	}
	return resp.Generation, resp.Available, zebraFound
}

// assertFallback checks every place that must tell the truth about a
// fallback from active to older.
func assertFallback(t *testing.T, h *novatest.Home, d *novatest.Daemon, older, active string) {
	t.Helper()
	gen, available, zebraFound := served(t, d)
	if !available || gen != older || zebraFound {
		t.Fatalf("searches must be answered by the intact older generation %s: available %v, generation %q, zebra %v", older, available, gen, zebraFound)
	}
	hl := directHealth(t, d)
	in := hl.Integrity
	if hl.Status != "ok" || hl.Generation != older || !hl.IndexLoaded || hl.IndexUnavailableReason != api.ActiveIndexMissing ||
		in.Status != api.IntegrityFallback || in.ActiveRunID != active || in.ServedRunID != older || in.Problem == "" {
		t.Errorf("/health does not say novad fell back: status %s generation %s loaded %v reason %s integrity %+v",
			hl.Status, hl.Generation, hl.IndexLoaded, hl.IndexUnavailableReason, in)
	}
	fh := facadeHealth(t, d)
	rs := fh.RagStatus
	if !fh.Available || !rs.SearchAvailable || rs.Generation != older || rs.Freshness.Status != api.FreshnessServerIndexNotReady ||
		rs.Integrity == nil || rs.Integrity.Status != api.IntegrityFallback || rs.Integrity.ActiveRunID != active {
		t.Errorf("facade health does not say novad fell back: %+v", fh)
	}
	// The log line follows the swap that searches see.
	waitFor(t, 5*time.Second, "the log to say which generation serves instead", func() bool {
		return strings.Contains(d.Logs.String(), "serving the newest intact kept generation instead")
	})
	out, _, code := h.Novactl("doctor")
	if code != 0 || !strings.Contains(out, "Degraded: generation-load-failed") || !strings.Contains(out, "novad serves "+older) {
		t.Errorf("doctor must name the fallback (Degraded, exit 0), exit %d:\n%s", code, out)
	}
}

// TestRestartWithDamagedActiveGeneration: novad restarted while the
// active generation is truncated, bit-flipped or missing serves the
// newest intact kept generation within seconds and says so everywhere.
func TestRestartWithDamagedActiveGeneration(t *testing.T) {
	t.Parallel()
	for _, dmg := range damages {
		t.Run(dmg.name, func(t *testing.T) {
			t.Parallel() // each has its own home and novad
			h := novatest.NewHome(t, "")
			older, active := twoGenerations(t, h)
			dmg.do(t, generationDir(h, active))
			t0 := time.Now()
			d := h.Start()
			ready := time.Since(t0)
			assertFallback(t, h, d, older, active)
			t.Logf("%s: novad served %s %d ms after it was launched", dmg.name, older, ready.Milliseconds())
			if strings.Contains(d.Logs.String(), "keeps serving") {
				t.Errorf("nothing was serving before the start, yet the log says something keeps serving:\n%s", d.Logs.String())
			}
			// doctor's own look at the files: the default check sees a
			// changed size or a missing file; only --deep sees rot.
			args := []string{"doctor"}
			if dmg.keepsSizeAndTime {
				args = append(args, "--deep")
			}
			out, _, _ := h.Novactl(args...)
			if !strings.Contains(out, "Degraded: generation-corrupt") || !strings.Contains(out, "rollback --to "+older) {
				t.Errorf("novactl %v must name the damaged active generation and the way back:\n%s", args, out)
			}
		})
	}
}

// TestNothingIntactServesNothingAndSaysSo: with every generation damaged
// novad serves nothing, never claims that something keeps serving, and
// doctor is Blocked.
func TestNothingIntactServesNothingAndSaysSo(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	older, active := twoGenerations(t, h)
	damages[0].do(t, generationDir(h, active))
	damages[2].do(t, generationDir(h, older))
	d := h.Start()
	if _, available, _ := served(t, d); available {
		t.Fatal("search is available with no intact generation")
	}
	hl := directHealth(t, d)
	if hl.IndexLoaded || hl.Integrity.Status != api.IntegrityNone || hl.IndexUnavailableReason != api.ActiveIndexMissing {
		t.Errorf("/health: loaded %v reason %s integrity %+v", hl.IndexLoaded, hl.IndexUnavailableReason, hl.Integrity)
	}
	logs := d.Logs.String()
	if strings.Contains(logs, "keeps serving") || !strings.Contains(logs, "nothing is served") {
		t.Errorf("the log must say that nothing is served:\n%s", logs)
	}
	out, _, code := h.Novactl("doctor")
	if code != 1 || !strings.Contains(out, "Blocked: generation-load-failed") || !strings.Contains(out, "Blocked: generation-corrupt") {
		t.Errorf("doctor must be Blocked (exit 1), exit %d:\n%s", code, out)
	}
}

// TestDamageWhileServed: damage to the served generation is noticed by
// the periodic check (a changed size) or by SIGHUP (rot that keeps size
// and time), and novad falls back; index list shows the damage.
func TestDamageWhileServed(t *testing.T) {
	t.Parallel()
	for _, dmg := range damages[:2] {
		t.Run(dmg.name, func(t *testing.T) {
			// Each has its own home and novad; the truncated one mostly
			// waits for novad's periodic check (every 10 s).
			t.Parallel()
			h := novatest.NewHome(t, "")
			older, active := twoGenerations(t, h)
			d := h.Start()
			if gen, _, zebraFound := served(t, d); gen != active || !zebraFound {
				t.Fatalf("novad does not serve the active generation %s: %s", active, gen)
			}
			dmg.do(t, generationDir(h, active))
			t0 := time.Now()
			if dmg.keepsSizeAndTime {
				// Only the hourly checksum pass would see this: ask now.
				novatest.Must(t, d.Cmd.Process.Signal(syscall.SIGHUP))
			}
			waitFor(t, 30*time.Second, "novad to notice the damage and fall back", func() bool {
				gen, _, _ := served(t, d)
				return gen == older
			})
			t.Logf("%s: fell back to %s %d ms after the damage", dmg.name, older, time.Since(t0).Milliseconds())
			assertFallback(t, h, d, older, active)

			args := []string{"index", "list"}
			if dmg.keepsSizeAndTime {
				args = append(args, "--deep")
			}
			out, _, code := h.Novactl(args...)
			if code != 0 || !strings.Contains(out, "generation "+active+": ") || !regexpLine(out, active, "DAMAGED") || !regexpLine(out, older, "intact") {
				t.Errorf("novactl %v must show %s damaged and %s intact:\n%s", args, active, older, out)
			}
		})
	}
}

// regexpLine reports whether some line of out holds both a and b.
func regexpLine(out, a, b string) bool {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, a) && strings.Contains(line, b) {
			return true
		}
	}
	return false
}

// TestSIGHUPForcesReload: SIGHUP reloads (and re-verifies) even when the
// manifest has not changed, as the README says.
func TestSIGHUPForcesReload(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	h.Sync()
	d := h.Start()
	// novad serves /health while its first load runs; count from after it,
	// or the first load would pass for the signal's.
	waitFor(t, 10*time.Second, "the first load", func() bool { return directHealth(t, d).IndexLoaded })
	before := directHealth(t, d).Reload.Reloads
	novatest.Must(t, d.Cmd.Process.Signal(syscall.SIGHUP))
	waitFor(t, 10*time.Second, "the forced reload", func() bool {
		return directHealth(t, d).Reload.Reloads > before
	})
	// The log line follows the swap that /health reports.
	waitFor(t, 5*time.Second, "the reload to be logged as the signal's", func() bool {
		logs := d.Logs.String()
		return strings.Contains(logs, `"trigger":"signal"`) || strings.Contains(logs, "trigger=signal")
	})
}

// TestRollbackFromDamage: with the manifest unreadable and the two newest
// generations damaged, novactl index rollback brings back the intact one
// from the kept generations alone and names what it skipped; the next sync
// keeps that generation and promotes a new one beside it.
func TestRollbackFromDamage(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	oldest, middle := twoGenerations(t, h)
	f, err := os.OpenFile(filepath.Join(h.Data, "records.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	novatest.Must(t, err)
	fmt.Fprintln(f, `{"id":"ibis-1","text":"The ibis migration notes moved to the wiki.","date":"2026-11-30","project":"nova"}`)
	novatest.Must(t, f.Close())
	h.Sync()
	newest := activeRunID(t, h)
	damages[0].do(t, generationDir(h, newest))
	damages[1].do(t, generationDir(h, middle))
	novatest.Must(t, os.WriteFile(filepath.Join(h.Dir, "index", "manifest.json"), []byte("{not json"), 0o600))

	out, errOut, code := h.Novactl("index", "rollback")
	if code != 0 || !strings.Contains(out, "Rolled back: "+oldest) || !strings.Contains(out, "Skipped damaged generation "+newest) || !strings.Contains(out, "Skipped damaged generation "+middle) {
		t.Fatalf("rollback must make %s active and name the damaged %s and %s: exit %d\n%s%s", oldest, newest, middle, code, out, errOut)
	}
	if got := activeRunID(t, h); got != oldest {
		t.Fatalf("active generation %s, want %s", got, oldest)
	}
	h.Sync()
	out, _, code = h.Novactl("index", "list", "--deep")
	if code != 0 || !regexpLine(out, oldest, "intact") || strings.Contains(out, "DAMAGED") {
		t.Errorf("after the next sync %s must still be kept and intact, nothing damaged kept:\n%s", oldest, out)
	}
}

// TestTruncatedServedFile: a generation file truncated under a running
// novad (its files are memory-mapped; reading past the new end faults)
// fails the searches that touch it instead of killing novad, and novad
// then stops serving the altered generation rather than read it again.
func TestTruncatedServedFile(t *testing.T) {
	t.Parallel()
	h := novatest.NewHome(t, "")
	h.Sync()
	d := h.Start()
	if r := search(t, d.Facade, `{"query":"dashboard port"}`); r.json(t)["available"] != true {
		t.Fatalf("before: %s", r.body)
	}
	records, err := filepath.Glob(filepath.Join(h.Dir, "index", "segments", "*", "records.bin"))
	novatest.Must(t, err)
	if len(records) == 0 {
		t.Fatal("no records.bin under index/segments")
	}
	for _, p := range records {
		novatest.Must(t, os.Chmod(p, 0o600))
		novatest.Must(t, os.Truncate(p, 0))
	}
	// The first searches may still see the mapping (500) or already find
	// nothing served; novad must stay up either way.
	waitFor(t, 30*time.Second, "novad to stop serving the truncated generation", func() bool {
		r := search(t, d.Facade, `{"query":"dashboard port"}`)
		select {
		case <-d.Done:
			t.Fatalf("novad died (exit %d):\n%s", d.Exit, d.Logs.String())
		default:
		}
		return r.status == http.StatusOK && r.json(t)["available"] == false
	})
	var hl api.Health
	novatest.Must(t, json.Unmarshal(do(t, http.MethodGet, d.Direct+api.PathHealth, "", nil).body, &hl))
	if hl.Integrity.Status != api.IntegrityNone || hl.Generation != "" {
		t.Errorf("health after the truncation: integrity %q, generation %q", hl.Integrity.Status, hl.Generation)
	}
	// The facade says the active index failed, not that none was built.
	if r := search(t, d.Facade, `{"query":"dashboard port"}`); r.json(t)["reason"] != api.FreshnessServerIndexNotReady {
		t.Errorf("reason after the truncation: %v", r.json(t)["reason"])
	}
	if out, _, _ := h.Novactl("search", "dashboard port"); !strings.Contains(out, "failed verification") {
		t.Errorf("novactl search after the truncation:\n%s", out)
	}
	if strings.Contains(d.Logs.String(), "fatal error") {
		t.Errorf("novad logged a fatal error:\n%s", d.Logs.String())
	}
}
