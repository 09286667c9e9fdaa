package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/nova-recall/nova/doctor"
	"github.com/nova-recall/nova/freshness"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/inert"
	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/manifest"
	"github.com/nova-recall/nova/paths"
	"github.com/nova-recall/nova/truncate"
)

const indexHelp = `Manages index generations under NOVA_HOME/index.

  build      read the configured sources into a new candidate generation
  verify     fully load a candidate (default: the newest) and check it
  promote    verify a candidate and make it active (atomic manifest swap)
  sync       build, verify and promote in one step (what you usually want)
  rollback   make the previously active generation (or --to RUN_ID) active again
  list       show generations and candidates with their state
  watch      keep the index fresh by itself: watch the sources and sync
             soon after they change (novactl index watch --help)

A running novad picks up a promoted generation by itself, without restart.
While the source watcher syncs, build, sync, promote and rollback wait for
it to finish.`

func indexVerbs() []verb {
	return []verb{
		{"build", "Read the configured sources into a new candidate generation"},
		{"verify", "Fully load a candidate (default: the newest) and check it"},
		{"promote", "Verify a candidate and make it active"},
		{"sync", "Build, verify and promote in one step"},
		{"rollback", "Make the previously active generation active again"},
		{"list", "Show generations and candidates with their state"},
		{"watch", "Keep the index fresh: watch the sources and sync when they change"},
	}
}

// indexVerbHelp is each verb's --help but watch's: what it does and what
// it picks when given no run id.
var indexVerbHelp = map[string]string{
	"build": `Reads the configured sources into a new candidate generation under
NOVA_HOME/index/candidates. It does not change the active generation:
novactl index promote makes the candidate active (novactl index sync does
both). When the active generation can be built upon, only what changed is read
and added as a delta; --full rebuilds every segment. When nothing changed, no
candidate is built.`,
	"sync": `Builds a candidate as novactl index build does, verifies it and makes it
active, in one step: what you usually want. When deltas have piled up they are
then merged into one generation, which replaces the promoted one and is the
generation left active. A running novad serves it without restart.`,
	"verify": `Fully loads a candidate or a kept generation (default: the newest candidate)
and checks every file against its checksum, the counts and the embedding
profile against the configuration. It changes nothing and takes no lock, so it
runs beside a sync: a candidate promoted meanwhile is verified where it went, and
one removed meanwhile is reported removed, not damaged.`,
	"promote": `Verifies a candidate and makes it active by an atomic swap of
NOVA_HOME/index/manifest.json. Without RUN_ID it takes the newest candidate, or
finishes a promotion that was interrupted; the RUN_ID of a kept generation makes
that one active again. Retention then keeps the active generation, the one it
replaced and the most recently active others, index.keepGenerations in all
(default 3), and removes candidates older than the active one. A running novad
serves the new generation without restart.`,
	"rollback": `Makes a kept generation active again. Without RUN_ID it steps back one
promotion: the first rollback takes the generation that was active before the
current one, a second the one active before that, and so on, passing over
damaged ones, which it names and retention removes. A sync or promote after
rollbacks starts again from the generation it replaces. --to RUN_ID (or RUN_ID)
takes exactly that one, an older or a newer one: novactl index list shows the
kept generations. The result names the generation now active and the one the
next plain rollback would take. Retention keeps index.keepGenerations
(default 3). A running novad serves it without restart.`,
	"list": `Shows the kept generations and the candidates, newest first: state (active,
kept, interrupted, candidate, incomplete, or writing: being written by the
index command that runs now), chunks, size, creation time and whether their
files are intact. It checks sizes, and hashes the files changed
since they were written; --deep hashes every file.`,
}

// indexWaits ends the help of the verbs that write the index.
const indexWaits = `

While the source watcher syncs, this waits for it to finish; another index
command running is an error that names it.

--json prints {"ok","result"}, and on failure "error" with, when the index
is locked by another command, "busy": {"operation","pid","since","lock"}, and
when a write found no room, "diskFull": {"cause","home","active","freeBytes"}:
cause is no-space (the disk is full), quota (your disk quota is used up) or
file-too-large (a file size limit such as ulimit -f); freeBytes, the room left
once the command removed what it wrote, is absent where it cannot be read.`

// indexSynopsis is the usage line of each verb but watch, with the
// arguments and flags it takes.
var indexSynopsis = map[string]string{
	"build":    "novactl index build [--full] [--retrain] [--prune-missing] [--in-process] [-v] [--json]",
	"sync":     "novactl index sync [--full] [--retrain] [--prune-missing] [--in-process] [-v] [--json]",
	"verify":   "novactl index verify [RUN_ID] [--json]",
	"promote":  "novactl index promote [RUN_ID] [--json]",
	"rollback": "novactl index rollback [--to RUN_ID | RUN_ID] [--json]",
	"list":     "novactl index list [--deep] [--json]",
}

func runIndex(ctx context.Context, inv *Invocation, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		if len(args) == 0 {
			return missingVerb(inv, "novactl index", indexVerbs())
		}
		printUsage(inv.Stdout, "novactl index <"+verbNames(indexVerbs(), "|")+"> [flags]", indexHelp)
		return ExitOK
	}
	sub, rest := args[0], args[1:]
	if sub == "watch" {
		return runIndexWatch(ctx, inv, rest)
	}
	if !isVerb(indexVerbs(), sub) {
		return unknownVerb(inv, "novactl index", sub, indexVerbs())
	}
	// Each verb takes only its own flags and arguments: a flag meant for
	// another verb would otherwise be accepted and silently do nothing.
	help := indexVerbHelp[sub]
	if sub != "verify" && sub != "list" {
		help += indexWaits
	}
	fs := newFlags(inv, "novactl index "+sub, indexSynopsis[sub], help)
	jsonOut := fs.Bool("json", false, "print a JSON summary and no progress")
	var retrain, full, prune, inProcess, verbose, deep bool
	to := ""
	switch sub {
	case "build", "sync":
		fs.BoolVar(&retrain, "retrain", false, "retrain the builtin embedder on the current corpus")
		fs.BoolVar(&full, "full", false, "rebuild every segment from the sources instead of adding a delta (keeps the embedder)")
		fs.BoolVar(&prune, "prune-missing", false, "drop memory whose source file no longer exists (kept by default)")
		fs.BoolVar(&inProcess, "in-process", false, "embed in this process even when novad is running")
		fs.BoolVar(&verbose, "v", false, "list every skipped line")
	case "rollback":
		fs.StringVar(&to, "to", "", "the run id to make active (default: one promotion further back)")
	case "list":
		fs.BoolVar(&deep, "deep", false, "hash every file of every generation (default: sizes, and hashes of files changed since they were sealed)")
	}
	pos, code := parseArgs(inv, fs, rest)
	if code >= 0 {
		return code
	}
	maxArgs := 0
	if sub == "verify" || sub == "promote" || sub == "rollback" {
		maxArgs = 1 // RUN_ID
	}
	if len(pos) > maxArgs {
		msg := fmt.Sprintf("unexpected argument %q", pos[maxArgs])
		if sub == "build" || sub == "sync" {
			// Likely a folder to index, as make run takes DIR=.
			msg += ": index " + sub + " reads the sources of config.yaml (novactl config init --notes DIR adds a folder of notes)"
		}
		return usageError(inv, fs, msg)
	}
	if sub == "rollback" && to != "" && len(pos) > 0 && pos[0] != to {
		return usageError(inv, fs, fmt.Sprintf("--to %s and %s name different run ids: give one", to, pos[0]))
	}
	for _, id := range append(pos, to) {
		if id != "" && !manifest.ValidRunID(id) {
			return usageError(inv, fs, fmt.Sprintf("%q is not a run id (YYYYMMDDTHHMMSSZ-xxxxxxxx; novactl index list shows them)", id))
		}
	}
	cfg, ok := loadConfig(inv, *jsonOut)
	if !ok {
		return ExitFailure
	}
	var prog *progress
	warnings := inv.Stderr
	if !*jsonOut && liveProgress(inv) {
		prog = newProgress(inv.Stderr)
		warnings = prog
	}
	opts := index.Options{
		Environ: inv.Environ, Retrain: retrain, Full: full, PruneMissing: prune, NoRemote: inProcess,
		Logger: warningLogger(warnings),
	}
	if prog != nil {
		opts.Progress = prog.update
	}
	ix := index.New(cfg, opts)
	runID := ""
	if len(pos) > 0 {
		runID = pos[0]
	}
	var result any
	var err error
	manifestErr := "" // list's: why the manifest cannot be read
	switch sub {
	case "build":
		var r *index.BuildResult
		r, err = waitForWatcher(ctx, inv, cfg.Home, sub, *jsonOut, func() (*index.BuildResult, error) { return ix.Build(ctx) })
		prog.done(err == nil)
		if err == nil {
			result = r
			if !*jsonOut {
				printBuild(inv.Stdout, r, verbose)
			}
		}
	case "sync":
		var r *index.SyncResult
		r, err = waitForWatcher(ctx, inv, cfg.Home, sub, *jsonOut, func() (*index.SyncResult, error) { return ix.Sync(ctx) })
		prog.done(err == nil)
		if r != nil && r.Build != nil {
			result = r
			if !*jsonOut {
				printBuild(inv.Stdout, r.Build, verbose)
			}
		}
		if err == nil && !*jsonOut {
			printSyncPromote(inv.Stdout, r)
		}
	case "verify":
		var r *index.VerifyResult
		r, err = ix.Verify(ctx, runID)
		prog.done(err == nil)
		if err == nil {
			result = r
			if !*jsonOut {
				fmt.Fprintf(inv.Stdout, "%s %s verified: %d chunks, %d files, %s, embedded with %s/%s/%d (%s), loaded in %dms\n",
					r.Where, r.RunID, r.Chunks, r.Files, humanize.IBytes(uint64(r.Bytes)), r.EmbeddingProfile.Provider, r.EmbeddingProfile.Model,
					r.EmbeddingProfile.Dimension, matchWord(r.ProfileMatches), r.LoadMs)
			}
		}
	case "promote":
		var r *index.PromoteResult
		r, err = waitForWatcher(ctx, inv, cfg.Home, sub, *jsonOut, func() (*index.PromoteResult, error) { return ix.Promote(ctx, runID) })
		if err == nil {
			result = r
			if !*jsonOut {
				printPromote(inv.Stdout, r)
			}
		}
	case "rollback":
		if to == "" {
			to = runID
		}
		var r *index.PromoteResult
		r, err = waitForWatcher(ctx, inv, cfg.Home, sub, *jsonOut, func() (*index.PromoteResult, error) { return ix.Rollback(ctx, to) })
		if err == nil {
			result = r
			if !*jsonOut {
				printRollback(inv.Stdout, r)
				printWatcherSyncsOn(inv.Stdout, cfg.Home, r.RunID)
			}
		}
	case "list":
		var gens []index.GenerationInfo
		depth := index.Quick
		if deep {
			depth = index.Deep
		}
		gens, err = ix.List(ctx, depth)
		if err == nil {
			if gens == nil {
				gens = []index.GenerationInfo{} // [] in JSON: a list, even empty
			}
			result = gens
			// A manifest that cannot be read leaves every generation
			// listed as kept and none active: say why.
			_, _, merr := manifest.Read(cfg.Home.Manifest())
			if merr != nil && !errors.Is(merr, manifest.ErrNoManifest) {
				manifestErr = merr.Error()
			}
			if !*jsonOut {
				printList(inv.Stdout, gens, deep, indexWriter(cfg.Home))
				switch {
				case manifestErr == "":
				case errors.Is(merr, manifest.ErrOldFormat):
					fmt.Fprintf(inv.Stdout, "The active generation was built by an older Nova: novactl index sync rebuilds it.\n")
				case errors.Is(merr, manifest.ErrNewerFormat):
					fmt.Fprintf(inv.Stdout, "The active generation: %s. Generations of the newer format are kept, never deleted by this build.\n", inert.Text(manifestErr))
				default:
					fmt.Fprintf(inv.Stdout, "The manifest (%s) cannot be read: %s. None of these is active as listed: novactl index rollback makes the most recently active intact one active again; novactl index sync builds a new one.\n",
						cfg.Home.Manifest(), inert.Text(manifestErr))
				}
			}
		}
	default:
		fmt.Fprintf(inv.Stderr, "novactl index: unknown subcommand %q\n", sub)
		return ExitUsage
	}
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		err = interruptedError{err: err, sub: sub}
	}
	if errors.Is(err, syscall.EROFS) {
		// novad serves such a home read-only; the index cannot change
		// there, and the bare error does not say why: said in the error,
		// it reaches --json's "error" as well as the text.
		err = readOnlyHomeError{home: cfg.Home.Root, err: err}
	}
	if *jsonOut {
		out := map[string]any{"ok": err == nil, "result": result}
		if err != nil {
			out["error"] = err.Error()
		}
		if manifestErr != "" {
			out["manifestError"] = manifestErr
		}
		if nothing, ok := errors.AsType[*index.NothingToIndexError](err); ok && nothing.Result != nil {
			out["sources"], out["problems"] = nothing.Result.Sources, nothing.Result.Problems
		}
		if le, ok := errors.AsType[*index.LockedError](err); ok {
			// Busy, not broken: a script may try again later.
			out["busy"] = map[string]any{"operation": le.Operation, "pid": le.PID, "since": le.Since, "lock": le.Path}
		}
		if df, ok := errors.AsType[*index.DiskFullError](err); ok {
			// No room: a script may wait for room (or a raised limit)
			// rather than retry at once.
			full := map[string]any{"cause": df.Cause(), "home": df.Home, "active": df.Active}
			if free, ferr := doctor.VolumeFree(df.Home); ferr == nil {
				full["freeBytes"] = free
			}
			out["diskFull"] = full
		}
		printJSON(inv.Stdout, out)
	}
	if err != nil {
		if nothing, ok := errors.AsType[*index.NothingToIndexError](err); ok && nothing.Result != nil && !*jsonOut {
			printSources(inv.Stdout, nothing.Result, verbose)
		}
		if !*jsonOut {
			fmt.Fprintf(inv.Stderr, "novactl index %s: %v\n", sub, err)
		}
		return ExitFailure
	}
	return ExitOK
}

// readOnlyHomeError is an index command that could not write NOVA_HOME
// because its volume is read-only; its message says how to index again.
type readOnlyHomeError struct {
	home string
	err  error
}

func (e readOnlyHomeError) Error() string {
	return fmt.Sprintf("%v; %s is on a read-only volume, where the index cannot be written: make the volume writable, or copy the home to a writable place (cp -a) and set NOVA_HOME to the copy", e.err, e.home)
}

func (e readOnlyHomeError) Unwrap() error { return e.err }

// interruptedError is an index command stopped by Ctrl-C (or SIGTERM)
// before it finished. The index package changes the active generation
// only in one atomic step at the end, so what it left is known: the
// bare "context canceled" did not say. An interrupted verify changed
// nothing either, but its checks are unfinished: it says so, lest the
// generation be taken for verified; so does an interrupted list, which
// lists nothing rather than generations it did not finish checking.
type interruptedError struct {
	err error
	sub string // the index subcommand
}

func (e interruptedError) Error() string {
	switch e.sub {
	case "verify":
		return "interrupted before the verification finished: it found the generation neither intact nor damaged, and changed nothing"
	case "list":
		return "interrupted before every generation was checked: nothing is listed, and nothing was changed"
	}
	return "interrupted; the active generation is unchanged"
}

func (e interruptedError) Unwrap() error { return e.err }

func matchWord(ok bool) string {
	if ok {
		return "matches the configuration"
	}
	return "does NOT match the configured embedder"
}

// printBuild summarises a build. An unchanged build wrote nothing: it
// says so and names the generation that stays active, since there is no
// candidate for verify or promote.
func printBuild(w io.Writer, r *index.BuildResult, verbose bool) {
	if r.Mode == index.ModeUnchanged {
		fmt.Fprintf(w, "Nothing changed: the sources are as %s read them, so no candidate was built and %s stays active (%d records, %d chunks).\n",
			r.RunID, r.RunID, r.Records, r.Chunks)
	} else {
		fmt.Fprintf(w, "Built %s: %d records → %d chunks (%s) in %s\n", r.RunID, r.Records, r.Chunks, humanize.IBytes(uint64(r.Bytes)), time.Duration(r.DurationMs)*time.Millisecond)
		fmt.Fprintf(w, "  embeddings: %d embedded, %d from cache (%s, %s/%s/%d)", r.Embedded, r.Cached, r.EmbeddingSource,
			r.EmbeddingProfile.Provider, r.EmbeddingProfile.Model, r.EmbeddingProfile.Dimension)
		if r.Carried > 0 {
			fmt.Fprintf(w, ", %d kept from earlier segments", r.Carried)
		}
		if r.ModelTrained {
			fmt.Fprint(w, ", builtin model trained on this corpus")
		}
		fmt.Fprintln(w)
	}
	printRecovery(w, r.Recovery, verbose)
	for _, s := range r.RemovedSources {
		fmt.Fprintf(w, "  dropped the memory of source %s (%d files, %d records): config.yaml no longer names it; put it back and sync to index it again, or novactl index rollback to return to the generation that held it\n",
			inert.Text(s.Source), s.Files, s.Records)
	}
	printSources(w, r, verbose)
}

// printRecovery says how a build got past a damaged active generation,
// and names plainly the memory it could not save and what can be done.
func printRecovery(w io.Writer, rec *index.Recovery, verbose bool) {
	if rec == nil {
		return
	}
	damaged := "The active generation"
	if rec.Damaged != "" {
		damaged += " " + rec.Damaged
	}
	fmt.Fprintf(w, "  %s is damaged and was not built upon: %s\n", damaged, inert.Text(rec.Problem))
	if rec.BuiltOn != "" {
		fmt.Fprintf(w, "  rebuilt on %s, the newest intact kept generation: every source file was read again, and the memory it holds of files that are gone is kept\n", rec.BuiltOn)
	} else {
		fmt.Fprintln(w, "  no kept generation is intact: rebuilt from the sources alone")
	}
	if rec.Unknown {
		fmt.Fprintln(w, "  the damaged generation's record of its source files cannot be read either: memory only it held of files that are gone may be lost, and cannot be named")
	}
	if len(rec.Lost) == 0 {
		if !rec.Unknown {
			fmt.Fprintln(w, "  no memory was lost")
		}
		return
	}
	records := 0
	for _, l := range rec.Lost {
		records += l.Records - l.Kept
	}
	files := fmt.Sprintf("%d files that are gone", len(rec.Lost))
	if len(rec.Lost) == 1 {
		files = "a file that is gone"
	}
	fmt.Fprintf(w, "  LOST: %d records of %s, which only the damaged generation held:\n", records, files)
	n := len(rec.Lost)
	if !verbose {
		n = min(n, 10)
	}
	for _, l := range rec.Lost[:n] {
		kept := ""
		if l.Kept > 0 {
			kept = fmt.Sprintf(" (an earlier read of it, %d records, is kept)", l.Kept)
		}
		fmt.Fprintf(w, "    %s (%s): %d records%s\n", inert.Text(l.Path), l.Source, l.Records, kept)
	}
	if n < len(rec.Lost) {
		fmt.Fprintf(w, "    … %d more (novactl doctor, or index/lost.json in NOVA_HOME, lists them all)\n", len(rec.Lost)-n)
	}
	fmt.Fprintln(w, "  The sources no longer hold them: if you have copies (a backup), put the files back where they were and run novactl index sync.")
}

// printSources says what each source gave and the input problems found:
// after a build, and after a sync that found nothing to index, where it
// is the diagnosis.
func printSources(w io.Writer, r *index.BuildResult, verbose bool) {
	var gone []string
	for _, s := range r.Sources {
		gone = append(gone, s.Gone...)
	}
	switch n := len(gone); {
	case n == 1:
		fmt.Fprintf(w, "  kept the memory of a file that is gone: %s (--prune-missing drops it)\n", inert.Text(gone[0]))
	case n > 1:
		fmt.Fprintf(w, "  kept the memory of %d files that are gone: %s and %d more (--prune-missing drops it)\n", n, inert.Text(gone[0]), n-1)
	}
	for _, s := range r.Sources {
		state := ""
		switch {
		case s.Missing:
			state = " — path does not exist"
		case s.Error != "":
			state = " — " + s.Error
		case s.EarlierProblems > 0:
			state = fmt.Sprintf(" (and %d found earlier in files not read again: novactl doctor lists them)", s.EarlierProblems)
		}
		if s.NotDownloaded > 0 {
			// Not downloaded is no problem of the read, but memory missing.
			files := "files"
			if s.NotDownloaded == 1 {
				files = "file"
			}
			state += fmt.Sprintf("; %d %s not downloaded from iCloud Drive, not read (novactl doctor says how to download them)", s.NotDownloaded, files)
		}
		fmt.Fprintf(w, "  source %s (%s): %d files, %d records, %d chunks, %d problems%s\n", s.Name, s.Kind, s.Files, s.Records, s.Chunks, s.Problems, state)
	}
	if r.ProblemCount > 0 {
		fmt.Fprintf(w, "  %d input problems (skipped, nothing else lost):\n", r.ProblemCount)
		n := len(r.Problems)
		if !verbose {
			n = min(n, 10)
		}
		for _, p := range r.Problems[:n] {
			fmt.Fprintf(w, "    %s\n", inert.Text(p.String())) // file names can hold escapes
		}
		if n < r.ProblemCount {
			fmt.Fprintf(w, "    … %d more (see build-report.json in the generation, or run with -v)\n", r.ProblemCount-n)
		}
	}
}

func printPromote(w io.Writer, r *index.PromoteResult) {
	if r == nil {
		return
	}
	prev := "none"
	if r.PreviousRunID != "" {
		prev = r.PreviousRunID
	}
	fmt.Fprintf(w, "Promoted %s (%d chunks); previous generation: %s.", r.RunID, r.Chunks, prev)
	if len(r.Deleted) > 0 {
		fmt.Fprintf(w, " Retention removed %s.", strings.Join(r.Deleted, ", "))
	}
	fmt.Fprintln(w, " A running novad serves it without restart.")
}

// printSyncPromote says what a sync made active: the build it promoted
// or, when the build's segments were merged at once, the compaction that
// replaced (and removed) it, which is the generation left active.
func printSyncPromote(w io.Writer, r *index.SyncResult) {
	c := r.Compaction
	if c == nil || c.Promote == nil {
		printPromote(w, r.Promote)
		return
	}
	prev := "none"
	if c.Promote.PreviousRunID != "" {
		prev = c.Promote.PreviousRunID
	}
	fmt.Fprintf(w, "Promoted %s, then merged its segments into %s, which replaced it: %s is active (%d chunks); previous generation: %s.",
		r.Promote.RunID, c.Promote.RunID, c.Promote.RunID, c.Promote.Chunks, prev)
	if deleted := append(slices.Clone(r.Promote.Deleted), c.Promote.Deleted...); len(deleted) > 0 {
		fmt.Fprintf(w, " Retention removed %s.", strings.Join(deleted, ", "))
	}
	fmt.Fprintln(w, " A running novad serves it without restart.")
}

// printRollback says what a rollback made active, which damaged
// generations it passed over and what retention removed.
func printRollback(w io.Writer, r *index.PromoteResult) {
	for _, s := range r.Skipped {
		id, _, _ := strings.Cut(s, ":")
		if slices.Contains(r.Kept, id) {
			fmt.Fprintf(w, "Skipped generation %s (it is kept)\n", s)
			continue
		}
		fmt.Fprintf(w, "Skipped damaged generation %s\n", s)
	}
	was := "no readable manifest named one"
	if r.PreviousRunID != "" {
		was = "was " + r.PreviousRunID
	}
	fmt.Fprintf(w, "Rolled back: %s is active again (%s).", r.RunID, was)
	if len(r.Deleted) > 0 {
		fmt.Fprintf(w, " Retention removed %s.", strings.Join(r.Deleted, ", "))
	}
	fmt.Fprintln(w, " A running novad serves it without restart.")
	if r.NextRollback != "" {
		fmt.Fprintf(w, "The next novactl index rollback steps back to %s", r.NextRollback)
	} else {
		fmt.Fprint(w, "No older generation is kept: a plain rollback has nothing further back")
	}
	if r.PreviousRunID != "" {
		fmt.Fprintf(w, "; novactl index rollback --to %s returns to the one just left", r.PreviousRunID)
	}
	fmt.Fprintln(w, ".")
}

// printWatcherSyncsOn warns, after a rollback, that a running source
// watcher's next sync builds on the generation rolled back to from the
// sources as they are now: what the rollback took away comes back at the
// next change an agent writes.
func printWatcherSyncsOn(w io.Writer, home paths.Home, runID string) {
	if !freshness.Running(home) {
		return
	}
	who := "The source watcher (novactl index watch)"
	if st, err := freshness.Read(home); err == nil && st.PID > 0 {
		who = fmt.Sprintf("The source watcher (novactl index watch, pid %d)", st.PID)
	}
	fmt.Fprintf(w, "%s is running: its next sync, after any source changes, builds on %s from the sources as they are now. To keep %s as it is, stop the watcher first.\n", who, runID, runID)
}

func printList(w io.Writer, gens []index.GenerationInfo, deep bool, writer string) {
	if len(gens) == 0 {
		fmt.Fprintln(w, "No generations yet: run novactl index sync.")
		return
	}
	fmt.Fprintf(w, "%-26s  %-11s  %8s  %9s  %-16s  %s\n", "RUN ID", "STATE", "CHUNKS", "SIZE", "CREATED", "FILES")
	var damaged []index.GenerationInfo // and those whose states are lost, or of a newer or older format
	for _, g := range gens {
		created := ""
		if !g.CreatedAt.IsZero() {
			created = g.CreatedAt.Local().Format("2006-01-02 15:04")
		}
		integrity := g.Integrity
		if integrity == "" {
			integrity = "-"
		}
		switch {
		case g.Integrity == "damaged":
			integrity = "DAMAGED"
			damaged = append(damaged, g)
		case g.StatesLost:
			integrity = "STATES LOST" // the memory is intact: the line below says so
			damaged = append(damaged, g)
		case g.Integrity == index.IntegrityNewer:
			integrity = "NEWER FORMAT" // a newer Nova's, kept: the line below says so
			damaged = append(damaged, g)
		case g.Integrity == index.IntegrityOlder:
			integrity = "OLDER FORMAT" // an older Nova's: the line below says what to run
			damaged = append(damaged, g)
		}
		fmt.Fprintf(w, "%-26s  %-11s  %8d  %9s  %-16s  %s\n", g.RunID, g.State, g.Chunks, humanize.IBytes(uint64(g.Bytes)), created, integrity)
	}
	for _, g := range damaged {
		fmt.Fprintln(w, g.Problem) // names the generation and the file
	}
	for _, g := range gens {
		switch g.State {
		case "interrupted":
			fmt.Fprintf(w, "%s: its promotion was interrupted; novactl index promote finishes it.\n", g.RunID)
		case index.StateWriting:
			fmt.Fprintf(w, "%s: being written now by %s; list again when it is done.\n", g.RunID, writer)
		case "incomplete":
			fmt.Fprintf(w, "%s: it has no candidate record (a build, or a removal, that did not finish) and cannot be made active; the next build or sync removes such a candidate, the next promotion such a generation.\n", g.RunID)
		}
	}
	if !deep {
		fmt.Fprintln(w, "FILES checks sizes, and hashes files changed since they were written; --deep hashes every file.")
	}
}

// indexWriter names the index command that holds home's index lock, as
// its lock file says, for index list's generations it is writing.
func indexWriter(home paths.Home) string {
	h := lockfile.ReadHolder(home.Lock())
	if h.PID <= 0 || h.Operation == "" {
		return "another index command"
	}
	return fmt.Sprintf("novactl index %s (pid %d)", h.Operation, h.PID)
}

// progress renders long work on a terminal: stage, counts, rate and ETA,
// redrawn in place at most a few times a second.
type progress struct {
	w io.Writer
	// width is the terminal's, 0 when unknown: a line wider than the
	// terminal wraps, and the next redraw erases only its last row.
	width   int
	mu      sync.Mutex
	stage   string
	started time.Time
	last    time.Time
	shown   bool
	// latest is the stage's last report, whose line is redrawn as
	// finished when the next stage starts: a stage's reports stop before
	// its work does (train reports only its total), so its last line
	// would stay at 0%.
	latest index.Progress
}

func newProgress(w io.Writer) *progress { return &progress{w: w, width: termWidth(w)} }

func (p *progress) update(u index.Progress) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if u.Stage != p.stage {
		p.finish(now)
		p.stage, p.started, p.last = u.Stage, now, time.Time{}
	}
	p.latest = u
	if now.Sub(p.last) < 150*time.Millisecond && u.Done != u.Total {
		return
	}
	p.last = now
	line := fmt.Sprintf("%-8s", u.Stage)
	if u.Total > 0 {
		line += fmt.Sprintf(" %d/%d (%d%%)", u.Done, u.Total, 100*u.Done/u.Total)
		if el := now.Sub(p.started).Seconds(); el > 0.5 && u.Done > 0 {
			rate := float64(u.Done) / el
			line += fmt.Sprintf(" · %.0f/s", rate)
			if u.Done < u.Total {
				line += fmt.Sprintf(" · ETA %s", (time.Duration(float64(u.Total-u.Done)/rate) * time.Second).Round(time.Second))
			}
		}
	}
	if u.Note != "" && u.Stage == "read" {
		line += " · " + truncate.Left(u.Note, 48)
	} else if u.Note != "" {
		line += " · " + u.Note
	}
	if p.width > 0 {
		line = truncate.Width(line, p.width-1)
	}
	fmt.Fprintf(p.w, "\r\033[K%s", line)
	p.shown = true
}

// Write prints a log line above the progress line, which the next
// update draws again.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
	return p.w.Write(b)
}

// warningLogger is the index's logger for the operator's commands: its
// warnings (compaction failed, a damaged kept generation skipped, the
// embedding cache not saved) are shown, without time stamps; its
// information is not.
func warningLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}))
}

// done ends the progress display: the last stage's line as finished when
// the work succeeded, else as it was last reported.
func (p *progress) done(ok bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !ok {
		if p.shown {
			fmt.Fprintln(p.w)
			p.shown = false
		}
		return
	}
	p.finish(time.Now())
}

// finish redraws the current stage's line as done, with its time, and
// ends it.
func (p *progress) finish(now time.Time) {
	if !p.shown {
		return
	}
	u := p.latest
	line := fmt.Sprintf("%-8s", u.Stage)
	if u.Total > 0 {
		line += fmt.Sprintf(" %d/%d (100%%)", u.Total, u.Total)
	}
	line += fmt.Sprintf(" · done in %s", now.Sub(p.started).Round(10*time.Millisecond))
	fmt.Fprintf(p.w, "\r\033[K%s\n", line)
	p.shown = false
}
