# contextfs — build, install, test and benchmark.
#
# The module needs Go 1.27 (go.mod); the machine's Go downloads it through
# the module proxy when GOTOOLCHAIN names it.
export GOTOOLCHAIN := go1.27.1
export CGO_ENABLED := 1

GO      ?= go
TAGS    := sqlite_fts5
BIN     := bin/git-contextfs
# The MCP server is a program of its own, installed beside the CLI, which
# runs it for `git contextfs mcp` (docs/DESIGN.md, Start-up).
MCPBIN  := bin/git-contextfs-mcp
# So is the HTTP client of the embedding provider openai, which both start
# when a repository uses it: git-contextfs links no net/http (Start-up).
EMBEDBIN := bin/git-contextfs-embed
# And the memory viewer (git contextfs serve), so that git-contextfs links
# no HTTP server (docs/VIEWER.md).
SERVEBIN := bin/git-contextfs-serve
# The manual-page generator: git-contextfs built with -tags manpages, whose
# hidden `man DIR` writes the pages with cobra/doc. It is never installed,
# so the shipped git-contextfs links no Markdown renderer (docs/DESIGN.md).
MANGEN   := bin/git-contextfs-man
# Versions are git tags vX.Y.Z (docs/INSTALL.md, "Cutting a release"): a
# tagged commit is vX.Y.Z, a later one vX.Y.Z-N-gHASH, a modified tree adds
# -dirty; before the first tag, v0.0.0-dev. All four programs read them
# from package internal/buildinfo.
VERSION := $(shell git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null || echo v0.0.0-dev)
COMMIT  := $(shell git describe --always --abbrev=12 --dirty --exclude='*' 2>/dev/null)
BUILDINFO := github.com/contextfs/contextfs/internal/buildinfo
LDFLAGS := -s -w -X $(BUILDINFO).version=$(VERSION) -X $(BUILDINFO).commit=$(COMMIT)
# PREFIX=/usr/local installs $(PREFIX)/bin and $(PREFIX)/share/man/man1;
# without it the binary goes where go install puts binaries.
ifdef PREFIX
BINDIR  ?= $(PREFIX)/bin
endif
BINDIR  ?= $(shell $(GO) env GOBIN)
ifeq ($(BINDIR),)
BINDIR  := $(shell $(GO) env GOPATH)/bin
endif
# man finds $(BINDIR)/../share/man by itself for every directory on PATH.
MANDIR  ?= $(abspath $(BINDIR)/../share/man)

.PHONY: all build install release demo test test-short fuzz stress bench bench-full bench-quality bench-scale model lint fmt clean

all: build

# build: the first build compiles SQLite and twelve tree-sitter grammars
# with cgo (see README, "Building"); -v prints each package as it is built,
# so a long first build shows progress.
build:
	@echo "building $(BIN), $(MCPBIN), $(EMBEDBIN) and $(SERVEBIN) (the first build compiles SQLite and the tree-sitter grammars: minutes; later builds take seconds)"
	$(GO) build -v -tags $(TAGS) -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/git-contextfs
	$(GO) build -v -tags $(TAGS) -trimpath -ldflags '$(LDFLAGS)' -o $(MCPBIN) ./cmd/git-contextfs-mcp
	$(GO) build -v -tags $(TAGS) -trimpath -ldflags '$(LDFLAGS)' -o $(EMBEDBIN) ./cmd/git-contextfs-embed
	$(GO) build -v -tags $(TAGS) -trimpath -ldflags '$(LDFLAGS)' -o $(SERVEBIN) ./cmd/git-contextfs-serve
	@echo "built $(BIN), $(MCPBIN), $(EMBEDBIN) and $(SERVEBIN)"

install: build
	mkdir -p $(BINDIR) $(MANDIR)/man1
	install -m 0755 $(BIN) $(BINDIR)/git-contextfs
	install -m 0755 $(MCPBIN) $(BINDIR)/git-contextfs-mcp
	install -m 0755 $(EMBEDBIN) $(BINDIR)/git-contextfs-embed
	install -m 0755 $(SERVEBIN) $(BINDIR)/git-contextfs-serve
	@echo "installed $(BINDIR)/git-contextfs, $(BINDIR)/git-contextfs-mcp, $(BINDIR)/git-contextfs-embed and $(BINDIR)/git-contextfs-serve"
	$(GO) build -tags '$(TAGS) manpages' -trimpath -ldflags '$(LDFLAGS)' -o $(MANGEN) ./cmd/git-contextfs
	$(MANGEN) man $(MANDIR)/man1
	@echo "installed the manual pages in $(MANDIR)/man1 (git contextfs --help shows them)"
	@case ":$$PATH:" in *":$(BINDIR):"*) ;; *) echo "note: add $(BINDIR) to PATH to use 'git contextfs', or set MANPATH=\"$(MANDIR):\" for the manual";; esac

# release: reproducible archives of the four programs with their manual
# pages and completions, and SHA256SUMS, in DIST, for each of PLATFORMS
# (linux/arm64 needs gcc-aarch64-linux-gnu); see scripts/release.sh.
DIST      ?= dist
PLATFORMS ?= linux/amd64 linux/arm64
release:
	GO='$(GO)' TAGS='$(TAGS)' VERSION='$(VERSION)' LDFLAGS='$(LDFLAGS)' DIST='$(DIST)' PLATFORMS='$(PLATFORMS)' ./scripts/release.sh

# demo: build, install, and run contextfs in a throw-away repository on the
# built-in defaults (no model download, no network).
demo: install
	PATH="$(BINDIR):$$PATH" ./scripts/demo.sh

# test: the whole suite, with the race detector (CI runs exactly this).
# GORACE=atexit_sleep_ms=0: a race-built program sleeps a second at exit
# by default, and the suite runs the race-built CLI thousands of times.
# The MCP client test needs the TypeScript SDK pinned in tests/mcp-client.
# The Node parts of the suite (the official MCP TypeScript SDK as a real
# client, the Mermaid parser for review diagrams, Playwright driving
# Debian's chromium through the viewer) are installed from their lockfiles
# with npm ci, once, and again when a lockfile changes.
NODE_TESTS := tests/mcp-client tests/mermaid tests/tokenizer tests/viewer

# go vet gets -race too: vet compiles every dependency it type-checks, and
# with the tests' flags it reuses their compiled SQLite and grammars
# instead of building them a second time without the race detector.
test: $(NODE_TESTS:%=%/node_modules/.package-lock.json)
	$(GO) vet -race -tags $(TAGS) ./...
	GORACE=atexit_sleep_ms=0 $(GO) test -tags $(TAGS) -race -count=1 -timeout 30m ./...

tests/%/node_modules/.package-lock.json: tests/%/package-lock.json
	cd tests/$* && npm ci --no-audit --no-fund

test-short:
	$(GO) test -tags $(TAGS) -count=1 ./...

# fuzz: every Fuzz target in the module, found by name so that a new one
# is never left out, each for FUZZTIME. Inputs that find new coverage are
# minimised with a budget of execs, not the default 60 s: the execs spent
# minimising are not counted, so slow targets (the merge runs git) showed
# 0 execs/s for minutes.
FUZZTIME ?= 30s
FUZZFLAGS = -run='^$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=100x
fuzz:
	@set -e; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' . | sort); do \
	  for t in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$f); do \
	    echo "== $$t ($$(dirname $$f))"; \
	    $(GO) test -tags $(TAGS) $(FUZZFLAGS) -fuzz="^$$t$$" ./$$(dirname $$f)/; \
	  done; \
	done

# stress: the crash-consistency test with STRESS kill -9 iterations (the
# suite runs 12); see docs/RELIABILITY.md.
STRESS ?= 200
stress:
	CONTEXTFS_STRESS=$(STRESS) $(GO) test -tags $(TAGS) -count=1 -v -run='^TestCrashConsistency$$' -timeout 30m ./cmd/git-contextfs/

# bench writes docs/BENCHMARKS.md from one run: a summary of every target
# the issues set, then the end-to-end tables (1K and 10K memories;
# bench-full adds 100K, to stdout), then the Go micro-benchmarks of
# BENCH_PKGS. Nothing in it is edited by hand. Progress goes to stderr; a
# section that fails is a failed row of the summary and the others run; if
# the program or go test fails, docs/BENCHMARKS.md stays as it was (what ran
# is in bin/BENCHMARKS.md). About 20 minutes on a busy 2-core
# machine: the repos row uses 2,000 memories per repository, SICK is left to
# bench-quality (nearly 3 minutes, and no target of make bench's), and the
# micro-benchmarks run 0.5 s each over the packages below (cmd/git-contextfs'
# pre-commit benchmarks are left out: the hooks section times the real hook).
BENCH_PKGS := ./cache ./chunker ./internal/embed ./memory ./internal/secrets ./internal/watch ./cmd/git-contextfs-serve
bench: build
	@mkdir -p bin
	$(GO) run -tags $(TAGS) ./cmd/contextfs-bench -sizes 1000,10000 -repos-size 2000 -sick=false -bin $(BIN) > bin/BENCHMARKS.md
	{ printf '## Go micro-benchmarks\n\n`go test -run=^$$ -bench=. -benchtime=500ms -benchmem` over %s.\n\n```\n' '$(BENCH_PKGS)'; \
	  $(GO) test -tags $(TAGS) -run='^$$' -bench=. -benchtime=500ms -benchmem -count=1 -timeout=15m $(BENCH_PKGS) && printf '```\n'; } > bin/BENCHMARKS-go.md
	cat bin/BENCHMARKS-go.md >> bin/BENCHMARKS.md
	@# bench-scale's section is kept: it takes far longer to measure.
	@awk '/^## Scale:/{s=1; print ""} s&&/^## /&&!/^## Scale:/{s=0} s' docs/BENCHMARKS.md >> bin/BENCHMARKS.md
	mv bin/BENCHMARKS.md docs/BENCHMARKS.md
	@echo "wrote docs/BENCHMARKS.md"

bench-full: build
	$(GO) run -tags $(TAGS) ./cmd/contextfs-bench -sizes 1000,10000,100000 -bin $(BIN)

# bench-scale: in-process hybrid search at 100K and 1M memories (wall p50 /
# p99 and CPU a query, recall@10 of the vector index against the exact scan),
# a reindex of each (wall, CPU, peak RSS), and at 100K a warm CLI search
# (the watcher's CPU) and MCP search_memory through `git-contextfs mcp`. The corpora and their caches
# are built once under SCALE_DIR and reused (the first 1M reindex takes tens
# of minutes); SCALE_FLAGS=-scale-reindex times the reindexes again. Writes
# its own section of docs/BENCHMARKS.md and leaves the rest.
SCALE_DIR   ?= $(HOME)/.cache/contextfs-bench-scale
SCALE_SIZES ?= 100000,1000000
bench-scale: build
	$(GO) run -tags $(TAGS) ./cmd/contextfs-bench -only scale -bin $(BIN) -scale-dir $(SCALE_DIR) -scale-sizes $(SCALE_SIZES) -scale-out docs/BENCHMARKS.md $(SCALE_FLAGS)

# bench-quality: retrieval quality on real repositories, long documents and
# SICK, against a file-level SQLite FTS5 baseline (offline: the sets are
# committed under cmd/contextfs-bench/testdata/quality). QUALITY_SETS picks
# some: make bench-quality QUALITY_SETS=proposal,sick
bench-quality:
	$(GO) run -tags $(TAGS) ./cmd/contextfs-bench -only quality -quality-sets "$(QUALITY_SETS)"

# model rebuilds internal/embed/wordvec.bin, the built-in embedder's word vectors,
# from Debian packages with fastText (docs/EMBEDDER.md; about half an hour
# of one core). CI does not run it: the table is committed, and this
# reproduces it bit for bit.
model:
	./scripts/model.sh

# staticcheck is pinned; staticcheck.conf says which checks are off and why.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint:
	@test -z "$$(gofmt -l .)" || (gofmt -l . && echo "gofmt: files above need formatting" && exit 1)
	$(GO) vet -tags $(TAGS) ./...
	$(GO) run $(STATICCHECK) -tags $(TAGS) ./...

fmt:
	gofmt -w .

clean:
	rm -rf bin dist
