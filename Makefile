# contextfs — build, install, test and benchmark.
#
# kelindar/search needs Go 1.27; the machine's Go downloads it through the
# module proxy when GOTOOLCHAIN names it.
export GOTOOLCHAIN := go1.27.1
export CGO_ENABLED := 1

GO      ?= go
TAGS    := sqlite_fts5
BIN     := bin/git-contextfs
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
BINDIR  ?= $(shell $(GO) env GOBIN)
ifeq ($(BINDIR),)
BINDIR  := $(shell $(GO) env GOPATH)/bin
endif

.PHONY: all build install demo test test-short fuzz bench bench-full bench-quality lint fmt clean

all: build

build:
	$(GO) build -tags $(TAGS) -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/git-contextfs

install: build
	mkdir -p $(BINDIR)
	install -m 0755 $(BIN) $(BINDIR)/git-contextfs
	@echo "installed $(BINDIR)/git-contextfs"
	@case ":$$PATH:" in *":$(BINDIR):"*) ;; *) echo "note: add $(BINDIR) to PATH to use 'git contextfs'";; esac

# demo: build, install, and run contextfs in a throw-away repository on the
# built-in defaults (no model download, no network).
demo: install
	PATH="$(BINDIR):$$PATH" ./scripts/demo.sh

# test: the whole suite, with the race detector (CI runs exactly this).
test:
	$(GO) vet -tags $(TAGS) ./...
	$(GO) test -tags $(TAGS) -race -count=1 -timeout 15m ./...

test-short:
	$(GO) test -tags $(TAGS) -count=1 ./...

fuzz:
	$(GO) test -tags $(TAGS) -run='^$$' -fuzz=FuzzParse -fuzztime=30s ./frontmatter/
	$(GO) test -tags $(TAGS) -run='^$$' -fuzz=FuzzChunk -fuzztime=30s ./chunker/
	$(GO) test -tags $(TAGS) -run='^$$' -fuzz=FuzzScan -fuzztime=30s ./secrets/

# bench: Go micro-benchmarks, then the end-to-end table (1K and 10K
# memories; bench-full adds 100K).
bench: build
	$(GO) test -tags $(TAGS) -run='^$$' -bench=. -benchmem -count=1 ./...
	$(GO) run -tags $(TAGS) ./cmd/contextfs-bench -sizes 1000,10000 -bin $(BIN)

bench-full: build
	$(GO) run -tags $(TAGS) ./cmd/contextfs-bench -sizes 1000,10000,100000 -bin $(BIN)

# bench-quality: retrieval quality on real repositories, long documents and
# SICK, against a file-level SQLite FTS5 baseline (offline: the sets are
# committed under cmd/contextfs-bench/testdata/quality).
bench-quality:
	$(GO) run -tags $(TAGS) ./cmd/contextfs-bench -only quality

lint:
	@test -z "$$(gofmt -l .)" || (gofmt -l . && echo "gofmt: files above need formatting" && exit 1)
	$(GO) vet -tags $(TAGS) ./...

fmt:
	gofmt -w .

clean:
	rm -rf bin
