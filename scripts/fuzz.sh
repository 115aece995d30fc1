#!/usr/bin/env bash
# fuzz.sh runs every fuzz target of the repository for a short, bounded time
# (ROBUSTREAM_FUZZTIME, default 10s each): the tokenizer, the chunker, the
# HTML and Markdown readers, the judge and the perturbations. Their seed
# corpora (f.Add and testdata/fuzz/) hold the hostile inputs found so far,
# and a plain `go test` already replays them; this adds new inputs on top.
# A failure leaves the crashing input under the package's testdata/fuzz/,
# where the next `go test` replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${ROBUSTREAM_FUZZTIME:-10s}
# Minimizing a new input can take up to a minute by default; keep the run
# bounded.
minimize=${ROBUSTREAM_FUZZMINIMIZETIME:-5s}
status=0
while IFS=: read -r file _ decl; do
	name=$(sed -E 's/^func (Fuzz[A-Za-z0-9_]+).*/\1/' <<<"$decl")
	pkg=./$(dirname "$file")
	echo "fuzz.sh: $pkg $name for $fuzztime"
	# Go's fuzzing engine sometimes reports "context deadline exceeded"
	# when its time runs out while a worker is still busy, without any
	# failing input (none is written to testdata/fuzz). That alone is
	# retried, twice at most; a real failure leaves its input and fails at
	# once.
	for attempt in 1 2 3; do
		log=$(mktemp)
		if go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" "$pkg" 2>&1 | tee "$log"; then
			rm -f "$log"
			break
		fi
		if [[ $attempt -lt 3 ]] && grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
			echo "fuzz.sh: $name: the engine timed out with no failing input; once more" >&2
			rm -f "$log"
			continue
		fi
		rm -f "$log"
		echo "fuzz.sh: $name in $pkg FAILED" >&2
		status=1
		break
	done
done < <(grep -rn --include='*_test.go' '^func Fuzz' . | sed 's|^\./||' | sort)
exit $status
