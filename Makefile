# robustream — `make run` starts everything embedded; `make test` runs every test.
GO      ?= go
BIN     := bin/robustream
DATA    ?= data
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)

export ROBUSTREAM_CHDB_LIB ?= $(CURDIR)/.chdb/lib/libchdb.so

.PHONY: setup build run test bench lint clean

# setup is idempotent and called by the other targets: it fetches the pinned,
# checksum-verified chDB library into .chdb/ (git-ignored) and the Go modules.
setup:
	@scripts/fetch-chdb.sh
	@scripts/check-optional.sh
	@$(GO) mod download

build: setup
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/robustream

# run: embedded Kafka broker, embedded ClickHouse (chDB), built-in models,
# demo feed and the dashboard on http://127.0.0.1:8080/.
run: build
	$(BIN) run --data-dir $(DATA)

# test: vet, then every package's tests. scripts/test.sh starts a private
# clickhouse-server for the server-mode tests when one is installed and
# ROBUSTREAM_TEST_CLICKHOUSE is not already set. Then every fuzz target for a
# short, bounded time (scripts/fuzz.sh, ROBUSTREAM_FUZZTIME).
test: setup
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	scripts/test.sh
	scripts/fuzz.sh

# bench: whole-pipeline figures against raw baselines measured in the same run.
bench: build
	$(BIN) bench
	$(GO) test -run '^$$' -bench . -benchtime 3x ./sinks/clickhouse/

lint:
	$(GO) vet ./...
	gofmt -l $$(git ls-files '*.go')

clean:
	rm -rf bin $(DATA)
