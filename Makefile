# Nova: build, run, test and check. Everything here works offline once the
# Go module cache is filled (go mod download); CI runs .ci/run.

GO        ?= go
# x86-64-v2 (SSE4.2, POPCNT) on amd64: the dense channel's sign prefilter
# counts bits, and v1 code checks for POPCNT on every count (1M chunks: p50
# in process 18.4-18.6 → 16.5 ms, BENCHMARKS.md). Every Intel Mac that
# Go's macOS support covers has v2. No effect on arm64. GOAMD64 in the
# environment wins.
export GOAMD64 ?= v2
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE      ?= $(shell TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null)
VPKG      := github.com/nova-recall/nova/internal/version
LDFLAGS   := -X $(VPKG).Version=$(VERSION) -X $(VPKG).Commit=$(COMMIT) -X $(VPKG).Date=$(DATE)
# goreleaser, pinned: newer releases need a newer Go than go.mod's.
GORELEASER ?= $(GO) run github.com/goreleaser/goreleaser/v2@v2.15.1
# run's memory folder; exported so that scripts/run.sh gets it whatever it holds
export DIR ?= sample/memory
FUZZTIME  ?= 10s
# golangci-lint at a pinned version, built from the module proxy by go run
# (and cached): a fresh clone needs nothing installed by hand. Its
# configuration is .golangci.yml.
GOLANGCI_LINT ?= $(GO) run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0

.PHONY: all build bench-build run test test-long lint check fuzz bench bench-redact eval eval-locomo dist tidy clean

all: build

## build: compile bin/novad, bin/novactl and bin/novactl-tui (the TUI "novactl tui" runs)
build:
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/novad ./cmd/novad
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/novactl ./cmd/novactl
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/novactl-tui ./cmd/novactl-tui

## bench-build: what "novactl bench" needs, which is make build: novactl
## links SQLite (modernc.org/sqlite) to read Hermes' state.db (source kind
## hermes), +6.1 MiB on linux/amd64 (28.4 → 34.8 MB) and +5.9 MiB on
## darwin/arm64 (26.4 → 32.6 MB), measured with make build on 2026-12-03,
## and the bench's SQLite FTS5 baseline uses the same driver; novad and
## novactl-tui carry none (internal/boundary checks it). bin/novactl-bench,
## which earlier sessions' figures name, is novactl.
bench-build: build
	ln -sf novactl bin/novactl-bench

## run: build, index DIR (default: the sample memory) into .nova-run, serve it
run: build
	./scripts/run.sh

# The pattern plainPassOnly checks its tests' names against
# (index/ingest/hugelines_test.go, plainPassTests).
PLAIN_PASS_TESTS := [hH]uge|bigNoteMemory|BoundedMemory
# lexical's allocation count, which the race detector's sync.Pool skews
# (lexical/touched_internal_test.go).
PLAIN_PASS_LEXICAL := TestSearchQuery_reusesItsDocumentList
# What novad's JSON encoding allocates, which the race detector's
# sync.Pool skews too (daemon/routes_test.go).
PLAIN_PASS_HTTPJSON := TestWriteJSON_realEnvelope
# search's pooled candidate lists, which the race detector's sync.Pool
# drops at random (search/lists_test.go).
PLAIN_PASS_SEARCH := TestSearchReusesCandidateLists

# The vector tests that call no vector kernel, which the arm64 pass under
# emulation leaves out.
NO_KERNEL_TESTS := TestBestOfIsTheHeapsChoice|TestHNSWRecallIsMeasured

## test: the whole test suite, with the race detector; then the tests that
## read tens of MiB on one goroutine, which skip under the detector (it has
## nothing to check there and makes them 7-15 times slower); the vector
## package again without its assembly, and on arm64 where qemu-aarch64 is
## installed. The programs the tests run are built once, for every package
## (internal/novatest, PrebuiltEnv). A program built with -race waits a
## second when it exits, for other goroutines' reports (GORACE's
## atexit_sleep_ms, 1000 by default): the tests start and stop hundreds,
## so the wait is 20 ms (mcpserver: 33 s → 9 s). e2e, the longest package, passed go
## test's default 10-minute limit on a machine loaded several times over,
## so the limit is 30.
test:
	$(GO) build -race -o bin/test-race/ ./cmd/novad ./cmd/novactl ./cmd/novactl-tui
	@# The tests' files go to a tmpfs where there is one (scripts/test-tmpdir.sh:
	@# fsync there costs nothing; NOVA_TEST_TMPDIR=- keeps TMPDIR).
	@set -e; tmp=$$(scripts/test-tmpdir.sh || true); \
	if [ -n "$$tmp" ]; then trap 'rm -rf "$$tmp"' EXIT; trap 'exit 130' INT TERM; export TMPDIR="$$tmp"; echo "test files in $$tmp"; fi; \
	echo "$(GO) test -race -count=1 -timeout 30m ./..."; \
	GORACE=atexit_sleep_ms=20 NOVA_TEST_PREBUILT=$(CURDIR)/bin/test-race $(GO) test -race -count=1 -timeout 30m ./...; \
	echo "$(GO) test -count=1 -run '$(PLAIN_PASS_TESTS)' ./index/ingest/"; \
	$(GO) test -count=1 -run '$(PLAIN_PASS_TESTS)' ./index/ingest/; \
	echo "$(GO) test -count=1 -run '$(PLAIN_PASS_LEXICAL)' ./lexical/"; \
	$(GO) test -count=1 -run '$(PLAIN_PASS_LEXICAL)' ./lexical/; \
	echo "$(GO) test -count=1 -run '$(PLAIN_PASS_HTTPJSON)' ./daemon/"; \
	$(GO) test -count=1 -run '$(PLAIN_PASS_HTTPJSON)' ./daemon/; \
	echo "$(GO) test -count=1 -run '$(PLAIN_PASS_SEARCH)' ./search/"; \
	$(GO) test -count=1 -run '$(PLAIN_PASS_SEARCH)' ./search/; \
	echo "$(GO) test -count=1 -tags purego ./vector/"; \
	$(GO) test -count=1 -tags purego ./vector/
	@# The arm64 (Apple silicon) dot kernel runs under user-mode emulation
	@# where it is installed; natively, the first line tests it. The two
	@# tests skipped there call no kernel (the top-k pick, coder/hnsw) and
	@# took 45 of the 57 s under emulation.
	@if [ "$$($(GO) env GOARCH)" != arm64 ] && command -v qemu-aarch64 >/dev/null; then \
		echo "GOARCH=arm64 $(GO) test -exec qemu-aarch64 -skip '$(NO_KERNEL_TESTS)' ./vector/"; \
		GOARCH=arm64 $(GO) test -count=1 -exec qemu-aarch64 -skip '$(NO_KERNEL_TESTS)' ./vector/; \
	elif [ "$$($(GO) env GOARCH)" != arm64 ]; then \
		echo "note: qemu-aarch64 is not installed (apt install qemu-user): the arm64 dot kernel was built and vetted, not run"; \
	fi

## test-long: the tests long by nature, which make test leaves out
## (NOVA_LONG_TESTS=1): the daemon's soak (TestSoak_nothingGrowsAcrossSyncsAndReloads,
## a watcher and novad syncing and reloading for 32 cycles, about 40 s
## with the race detector); NOVA_SOAK_CYCLES=n makes it longer
test-long:
	NOVA_LONG_TESTS=1 $(GO) test -race -count=1 -timeout 30m -run '^TestSoak_nothingGrowsAcrossSyncsAndReloads$$' ./daemon/

## lint: formatting, a tidy go.mod, vet, golangci-lint (staticcheck,
## errcheck, bodyclose, noctx, misspell), the macOS build, and a short fuzz
## of every target
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) mod tidy -diff
	$(GO) vet ./...
	GOOS=darwin $(GO) vet ./...
	GOOS=darwin $(GO) build ./...
	GOOS=darwin GOARCH=arm64 $(GO) vet ./vector/
	$(GO) vet -tags purego ./vector/
	$(GOLANGCI_LINT) run ./...
	./scripts/fuzz.sh $(FUZZTIME)

## check: lint and test (what CI runs)
check: lint test

## fuzz: fuzz every target for FUZZTIME each (e.g. make fuzz FUZZTIME=10m)
fuzz:
	./scripts/fuzz.sh $(FUZZTIME)

## bench: Go benchmarks of the engine and the index (see BENCHMARKS.md for novactl bench)
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./search/... ./lexical/... ./vector/...

## bench-redact: redaction speed on a 100 000-record transcript-like corpus (one pass)
bench-redact:
	$(GO) test -run '^$$' -bench 'Redact' -benchtime 1x ./redact/

## eval: recall on the sets shipped in eval/testdata (needs no ../shared): Chinese
## dialogue, Chinese questions over English dialogue, an English dialogue
## written blind (the unseen check of the English levers) and a coding agent's
## sessions written blind, with every lever's gain;
## fails below each set's recorded floor
eval: build
	./bin/novactl eval locomo --ablate all --min-r1 0.62 --min-r5 0.91 eval/testdata/zh-dialogue.json
	./bin/novactl eval locomo --ablate all --min-r1 0.52 --min-r5 0.80 eval/testdata/zh-dialogue-2.json
	./bin/novactl eval locomo --ablate all --min-r1 0.41 --min-r5 0.74 eval/testdata/zh-dialogue-3.json
	./bin/novactl eval locomo --ablate all --min-r1 0.26 --min-r5 0.59 eval/testdata/en-dialogue-zhq.json
	./bin/novactl eval locomo --ablate all --min-r1 0.34 --min-r5 0.60 eval/testdata/en-dialogue-zhq-2.json
	./bin/novactl eval locomo --ablate all --min-r1 0.20 --min-r5 0.41 eval/testdata/en-dialogue-unseen.json
	./bin/novactl eval locomo --ablate all --min-r1 0.26 --min-r5 0.64 eval/testdata/en-code-sessions.json
	./bin/novactl eval locomo --ablate all --min-r1 0.28 --min-r5 0.75 eval/testdata/zh-dialogue-4.json
	./bin/novactl eval locomo --ablate all --min-r1 0.31 --min-r5 0.54 eval/testdata/en-dialogue-unseen-2.json
	./bin/novactl eval locomo --ablate all --min-r1 0.45 --min-r5 0.75 eval/testdata/zh-dialogue-5.json
	./bin/novactl eval locomo --ablate all --min-r1 0.42 --min-r5 0.79 eval/testdata/zh-dialogue-6.json
	./bin/novactl eval locomo --ablate all --min-r1 0.43 --min-r5 0.80 eval/testdata/zh-dialogue-7.json
	./bin/novactl eval locomo --ablate all --min-r1 0.41 --min-r5 0.61 eval/testdata/en-dialogue-unseen-3.json
	./bin/novactl eval locomo --ablate all --min-r1 0.40 --min-r5 0.73 eval/testdata/zh-dialogue-8.json
	./bin/novactl eval locomo --ablate all --min-r1 0.40 --min-r5 0.71 eval/testdata/zh-dialogue-9.json

## eval-locomo: the LoCoMo recall protocol on ../shared/data/locomo-dev.json (or LOCOMO=path)
eval-locomo: build
	./bin/novactl eval locomo $${ABLATE:+--ablate $$ABLATE} $${LOCOMO:-../shared/data/locomo-dev.json}

## dist: release archives, checksums and Homebrew formulae in dist/ (goreleaser snapshot: publishes nothing; takes minutes)
# goreleaser reads the commit from git but gives up on all of it in a clone
# without a remote ("commit none"); the commit is passed in from git here,
# and its date as make build stamps it (DATE: UTC, whatever the zone it
# was committed in).
dist:
	NOVA_COMMIT=$$(git rev-parse HEAD) NOVA_SHORT_COMMIT=$$(git rev-parse --short HEAD) \
	NOVA_COMMIT_DATE=$(DATE) NOVA_COMMIT_TIMESTAMP=$$(git log -1 --format=%ct) \
	$(GORELEASER) release --snapshot --clean
	$(GO) test -count=1 -run 'TestDist' ./packaging/release/

tidy:
	$(GO) mod tidy

clean:
	rm -rf bin .nova-run dist completions
