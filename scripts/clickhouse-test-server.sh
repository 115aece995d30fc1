#!/usr/bin/env bash
# clickhouse-test-server.sh start|stop|url
#
# Runs a private clickhouse-server (Debian's 18.16 package on CI) for the
# server-mode integration tests: its own temp data dir, free ports on
# 127.0.0.1, no system service touched. `start` prints the native-protocol URL
# that the tests read from ROBUSTREAM_TEST_CLICKHOUSE:
#
#   export ROBUSTREAM_TEST_CLICKHOUSE=$(scripts/clickhouse-test-server.sh start)
#   go test ./sinks/clickhouse/...
#   scripts/clickhouse-test-server.sh stop
#
# `start` is idempotent: a server it started earlier and that still runs is
# reused. The state (data dir, pid, URL) lives in .cache/clickhouse-test-server/
# unless ROBUSTREAM_CH_TEST_STATE names another file.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
state=${ROBUSTREAM_CH_TEST_STATE:-$root/.cache/clickhouse-test-server}
server=${CLICKHOUSE_SERVER:-/usr/sbin/clickhouse-server}
config=${CLICKHOUSE_CONFIG:-/etc/clickhouse-server/config.xml}

die() { echo "clickhouse-test-server: $*" >&2; exit 1; }

running() {
	[ -f "$state/pid" ] && kill -0 "$(cat "$state/pid")" 2>/dev/null
}

# port_free succeeds when nothing accepts connections on 127.0.0.1:$1.
port_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Ports are drawn below the kernel's ephemeral range: a port there may be held
# by some outgoing connection, which a connect probe cannot see but which
# makes the server's bind fail.
free_port() {
	local p low
	low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
	[ "$low" -gt 12000 ] || low=32768
	for _ in $(seq 50); do
		p=$((10000 + RANDOM % (low - 10000)))
		if port_free "$p"; then
			echo "$p"
			return
		fi
	done
	die "no free port found"
}

# answers succeeds once the server runs queries, not merely listens.
answers() {
	local http=$1
	if command -v curl >/dev/null 2>&1; then
		[ "$(curl -fsS "http://127.0.0.1:$http/?query=SELECT%201" 2>/dev/null)" = 1 ]
	else
		[ "$(clickhouse-client --port "$2" -q 'SELECT 1' 2>/dev/null)" = 1 ]
	fi
}

start() {
	if running; then
		cat "$state/url"
		return
	fi
	[ -x "$server" ] || die "$server not found (apt-get install clickhouse-server)"
	# A port taken between our probe and the server's bind fails the start:
	# try again on other ports.
	for attempt in 1 2 3; do
		start_once && return
		echo "clickhouse-test-server: start attempt $attempt failed" >&2
	done
	die "server did not start after 3 attempts"
}

start_once() {
	rm -rf "$state"
	mkdir -p "$state"
	local dir tcp http inter
	dir=$(mktemp -d "${TMPDIR:-/tmp}/robustream-ch.XXXXXX")
	mkdir -p "$dir/data" "$dir/tmp" "$dir/uf" "$dir/fs"
	tcp=$(free_port)
	http=$(free_port)
	inter=$(free_port)
	# The server refuses data dirs it cannot write; when run by root on a
	# machine where the package created a clickhouse user it works either way,
	# so we run it as whoever calls us and own the dir ourselves.
	setsid "$server" --config-file="$config" -- \
		--path="$dir/data/" --tmp_path="$dir/tmp/" \
		--user_files_path="$dir/uf/" --format_schema_path="$dir/fs/" \
		--tcp_port="$tcp" --http_port="$http" --interserver_http_port="$inter" \
		--listen_host=127.0.0.1 \
		--logger.log="$dir/log" --logger.errorlog="$dir/err" --logger.console=0 \
		>"$dir/stdout" 2>&1 </dev/null &
	echo $! >"$state/pid"
	echo "$dir" >"$state/dir"
	for _ in $(seq 150); do
		if answers "$http" "$tcp"; then
			echo "clickhouse://127.0.0.1:$tcp" | tee "$state/url"
			return
		fi
		running || break
		sleep 0.2
	done
	tail -n 20 "$dir/err" "$dir/stdout" >&2 2>/dev/null || true
	stop
	echo "clickhouse-test-server: server did not answer on 127.0.0.1:$http" >&2
	return 1
}

stop() {
	[ -d "$state" ] || return 0
	if running; then
		local pid
		pid=$(cat "$state/pid")
		kill "$pid"
		for _ in $(seq 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
	fi
	[ -f "$state/dir" ] && rm -rf "$(cat "$state/dir")"
	rm -rf "$state"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
url) running && cat "$state/url" || die "not running" ;;
*) die "usage: $0 start|stop|url" ;;
esac
