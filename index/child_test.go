package index_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/nova-recall/nova/config"
	"github.com/nova-recall/nova/index"
	"github.com/nova-recall/nova/paths"
)

// runChild is the helper process's main. The mode says what to do:
//
//   - crash: sync, and SIGKILL this process when the hook (or, for steps
//     named "progress:<stage>", the progress callback) reaches
//     NOVA_TEST_STEP; exit 3 if the step never came.
//   - crash-rollback: as crash, for a plain rollback instead of a sync.
//   - hold: sync, and at NOVA_TEST_STEP print "paused" and wait for stdin
//     to close while holding the writer lock.
//   - sync: sync, and exit 1 with the error on stderr if it fails.
//
// NOVA_TEST_FSIZE, when set, is a file size limit in bytes (RLIMIT_FSIZE,
// what ulimit -f sets) for every mode: a write past it fails with EFBIG,
// which is how a test makes real writes fail without root or a small file
// system. Go ignores SIGXFSZ, which would otherwise kill the process.
//
// The home, the jsonl source and the clock start come from NOVA_TEST_ROOT,
// NOVA_TEST_SRC and NOVA_TEST_CLOCK.
func runChild(mode string) int {
	cfg := config.Defaults()
	cfg.Home = paths.Home{Root: os.Getenv("NOVA_TEST_ROOT")}
	cfg.Sources = []config.Source{{Name: "notes", Kind: config.KindJSONL, Path: os.Getenv("NOVA_TEST_SRC")}}
	start, err := time.Parse(time.RFC3339, os.Getenv("NOVA_TEST_CLOCK"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	if limit := os.Getenv("NOVA_TEST_FSIZE"); limit != "" {
		n, err := strconv.ParseUint(limit, 10, 64)
		if err == nil {
			err = syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "child: file size limit:", err)
			return 2
		}
	}
	step := os.Getenv("NOVA_TEST_STEP")
	at := func(name string) {
		if name != step {
			return
		}
		switch mode {
		case "crash", "crash-rollback":
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Minute) // the signal is asynchronous
		case "hold":
			fmt.Println("paused")
			_, _ = io.Copy(io.Discard, bufio.NewReader(os.Stdin))
		}
	}
	opts := index.Options{NoRemote: true, Now: newClock(start).Now, Hook: at,
		Progress: func(p index.Progress) { at("progress:" + p.Stage) }}
	if mode == "crash-rollback" {
		if _, err := index.New(cfg, opts).Rollback(context.Background(), ""); err != nil {
			fmt.Fprintln(os.Stderr, "child rollback:", err)
			return 1
		}
		fmt.Fprintln(os.Stderr, "child: step", step, "never came")
		return 3
	}
	if _, err := index.New(cfg, opts).Sync(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "child sync:", err)
		return 1
	}
	if mode == "crash" {
		fmt.Fprintln(os.Stderr, "child: step", step, "never came")
		return 3
	}
	return 0
}
