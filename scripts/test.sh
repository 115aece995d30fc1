#!/usr/bin/env bash
# test.sh runs the whole test suite. When clickhouse-server is installed and
# ROBUSTREAM_TEST_CLICKHOUSE is unset, it starts a private server for the
# server-mode tests and stops it afterwards.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

started=
if [ -z "${ROBUSTREAM_TEST_CLICKHOUSE:-}" ] && [ -x /usr/sbin/clickhouse-server ]; then
	ROBUSTREAM_TEST_CLICKHOUSE=$(scripts/clickhouse-test-server.sh start)
	export ROBUSTREAM_TEST_CLICKHOUSE
	started=1
	trap 'scripts/clickhouse-test-server.sh stop' EXIT
fi
if [ -z "${ROBUSTREAM_TEST_CLICKHOUSE:-}" ]; then
	echo "test.sh: no clickhouse-server: server-mode tests will skip (apt-get install clickhouse-server)" >&2
else
	echo "test.sh: server-mode tests use $ROBUSTREAM_TEST_CLICKHOUSE${started:+ (started here)}" >&2
fi
# Packages run one at a time: several chDB-backed test binaries at once would
# each map the 559 MB engine and compete for the two cores of a CI machine.
go test -count=1 -p 1 -timeout 45m "$@" ./...
