#!/bin/sh
# same-questions.sh runs the demo feed twice through the whole pipeline
# (eval --once, embedded broker and chDB, each run in a fresh data dir) and
# checks that both runs stored the same question ids and the same variants
# (ids, contexts and expected answers, PRGB's noise included): the
# partitions interleave the periods differently in every run, and one
# corpus must give one test set. Usage: scripts/same-questions.sh [periods] (default 12).
# Needs bin/robustream (go build -o bin/robustream ./cmd/robustream) and
# libchdb.so (make setup, or ROBUSTREAM_CHDB_LIB).
set -eu
periods=${1:-12}
bin=${ROBUSTREAM_BIN:-bin/robustream}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for run in 1 2; do
	"$bin" eval --once --source demo --demo-periods "$periods" --data-dir "$tmp/d$run" --http "" >"$tmp/log$run" 2>&1 ||
		{ cat "$tmp/log$run" >&2; exit 1; }
	"$bin" sql --data-dir "$tmp/d$run" "SELECT question_id FROM robustream.questions ORDER BY 1" >"$tmp/q$run"
	"$bin" sql --data-dir "$tmp/d$run" "SELECT variant_id, axis, kind, cityHash64(arrayStringConcat(contexts, '|')), expected_answer FROM robustream.variants ORDER BY 1" >"$tmp/v$run"
done
n=$(wc -l <"$tmp/q1")
if [ "$n" -eq 0 ]; then
	echo "same-questions: the demo feed asked no questions" >&2
	exit 1
fi
if ! cmp -s "$tmp/q1" "$tmp/q2"; then
	echo "same-questions: two runs of $periods periods asked different questions ($n and $(wc -l <"$tmp/q2")):" >&2
	diff "$tmp/q1" "$tmp/q2" | head -20 >&2
	exit 1
fi
if ! cmp -s "$tmp/v1" "$tmp/v2"; then
	echo "same-questions: two runs of $periods periods made different variants (PRGB noise, placeholders, …):" >&2
	diff "$tmp/v1" "$tmp/v2" | head -20 >&2
	exit 1
fi
echo "same-questions: two runs of $periods periods asked the same $n questions, with the same $(wc -l <"$tmp/v1") variants"
