package reader

import (
	"math"
	"slices"
	"time"
)

// knee steers an automatic window by the latency of calls, for servers that
// publish no queue gauges (OpenAI, Ollama, a vLLM serving another name...).
//
// Why latency tells: a server runs at most some number of requests at once
// (its slots) and queues the rest. While our window is at most its slots, a
// call takes its service time whatever the window; past them, every extra
// call in flight waits in the server's queue and adds to the latency of all
// (Little's law: latency grows as window / slots). So the knee, the
// smallest window that keeps every slot busy, is where latency leaves its
// floor. A window a little past the knee keeps the server full at the cost
// of a short queue; one below it leaves slots idle. The rule therefore errs
// upwards:
//
//   - Calls are timed in rounds of max(kneeRound, window) successes, and a
//     round is summed up by its median: service times are long-tailed
//     (long answers hold a slot ten times longer than most), so one slow
//     call must not read as a queue, and the median of a round of mixed
//     request sizes is steady while their mix is.
//   - The floor is the lowest round median seen.
//   - Round median below kneeLow × floor, with the window full at some time
//     in the round (callers waited for a slot): grow. Doubling (slow start)
//     until latency first rises or an overload comes, then by a sixteenth
//     (at least one).
//   - Above kneeHigh × floor: shrink to window × kneeLow / ratio, which by
//     Little's law lands near kneeLow × the knee, but by a quarter at most
//     per round: a round's median is noisy, and a window below the knee
//     costs throughput while one above it only costs a short queue.
//   - In between: hold.
//   - A rise above kneeHigh at a window no larger than one where latency was
//     still near the floor cannot be our queue: the requests got bigger, or
//     others share the server. The window then holds, and when the rise
//     lasts kneeRisen rounds the floor is reset to the new median.
//
// Overload (429, 503, timeouts) cuts the window in the gate and ends slow
// start here. Calls under way when the window moves were sent under the
// old one and are not timed (skip).
type knee struct {
	samples   []time.Duration // this round's latencies
	skip      int             // successes still to ignore after a change
	floor     time.Duration   // lowest round median; 0 before the first
	flatAt    float64         // largest window whose median was below kneeLow × floor
	risen     int             // rounds in a row above kneeHigh at a window ≤ flatAt
	slowStart bool
	full      bool // a caller waited for a slot during this round
}

const (
	// kneeRound is the fewest successes in a round: enough for a median
	// that a few long answers do not move.
	kneeRound = 64
	// kneeLow and kneeHigh bound the latency, as a multiple of its floor,
	// within which the window holds.
	kneeLow  = 1.5
	kneeHigh = 2.5
	// kneeRisen is how many rounds in a row the latency must stay above
	// kneeHigh × floor, at a window where it was once near the floor,
	// before the floor is taken to have moved: one round can be a burst
	// of long answers.
	kneeRisen = 3
)

// observe records one success's latency under window limit and, at the end
// of a round, returns the window the round calls for (ok false: keep it).
func (k *knee) observe(latency time.Duration, limit float64) (next float64, ok bool) {
	if k.skip > 0 {
		k.skip--
		return 0, false
	}
	k.samples = append(k.samples, latency)
	if len(k.samples) < max(kneeRound, int(limit)) {
		return 0, false
	}
	slices.Sort(k.samples)
	median := k.samples[len(k.samples)/2]
	k.samples = k.samples[:0]
	full := k.full
	k.full = false
	if median <= 0 {
		return 0, false // a clock too coarse to time the calls
	}
	if k.floor == 0 || median < k.floor {
		k.floor = median
	}
	ratio := float64(median) / float64(k.floor)
	switch {
	case ratio > kneeHigh:
		k.slowStart = false
		if limit <= k.flatAt {
			// Not our queue, if it lasts: see the type's doc.
			if k.risen++; k.risen >= kneeRisen {
				k.floor, k.risen = median, 0
			}
			return 0, false
		}
		k.risen = 0
		return math.Floor(limit * math.Max(0.75, kneeLow/ratio)), true
	case ratio >= kneeLow:
		k.slowStart = false
		k.risen = 0
		return 0, false
	}
	k.risen = 0
	k.flatAt = math.Max(k.flatAt, limit)
	if !full {
		return 0, false // the window is not what limits the calls
	}
	if k.slowStart {
		return 2 * limit, true
	}
	return limit + math.Max(1, math.Floor(limit/16)), true
}

// overloaded ends slow start and drops the round: latencies next to an
// overload say little about the queue.
func (k *knee) overloaded() {
	k.slowStart = false
	k.samples = k.samples[:0]
}

// restart begins a new round after the window moved; the inFlight calls
// under way are not timed.
func (k *knee) restart(inFlight int) {
	k.samples = k.samples[:0]
	k.skip = inFlight
	k.full = false
}
