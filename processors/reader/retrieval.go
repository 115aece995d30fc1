package reader

import (
	"strings"

	"github.com/robustream/robustream/processors/text"
	"github.com/robustream/robustream/schemas"
)

// minPassageBytes is the shortest retrieved passage that counts as a hit
// when it lies inside a ground-truth chunk: a service that cuts its own
// passages finer than our chunks still retrieved the chunk, but a
// sentence fragment of a few words proves nothing.
const minPassageBytes = 40

// judgeRetrieval fills what a result is judged on for its retrieved
// passages (docs/methods.md, Retrieval metrics), for a model that retrieves
// its own contexts and for a built-in retriever's variant:
//
//   - Retrieved: the passages, in the retriever's order;
//   - AnswerAvailable: whether a passage holds an accepted answer (RARE
//     §3.3.4: availability is computed from the retrieved text; RARE's f
//     then uses it);
//   - RetrievalHit: whether a ground-truth chunk is among them;
//   - RetrievalRecall: the share of the question's distinct ground-truth
//     chunks retrieved (a multi-hop question needs all of its chunks for
//     1);
//   - RetrievalPrecision: the share of passages that are relevant: hold an
//     accepted answer or a ground-truth chunk;
//   - RetrievalRR: 1/rank of the first passage holding a ground-truth
//     chunk, 0 when none does (MRR is its mean).
//
// A passage holds a chunk when it is the chunk, contains it, or is a long
// enough piece of it (minPassageBytes), compared with case and runs of
// white space folded.
func judgeRetrieval(res *schemas.EvalResult, retrieved, groundTruth, accepted []string) {
	res.Retrieved = retrieved
	m := retrievalMetrics(retrieved, groundTruth, accepted)
	res.AnswerAvailable, res.RetrievalHit = m.answer, m.hit
	res.RetrievalRecall, res.RetrievalPrecision, res.RetrievalRR = m.recall, m.precision, m.rr
}

// retrieval is one result's retrieval verdicts.
type retrieval struct {
	answer, hit           bool
	recall, precision, rr float64
}

func retrievalMetrics(retrieved, groundTruth, accepted []string) retrieval {
	answers := text.NewAnswers(accepted)
	var gts []string
	seen := map[string]bool{}
	for _, g := range groundTruth {
		if g = squash(g); g != "" && !seen[g] {
			seen[g] = true
			gts = append(gts, g)
		}
	}
	var out retrieval
	found := make([]bool, len(gts))
	relevant := 0
	for rank, p := range retrieved {
		holdsAnswer := answers.TokenSeq(p)
		out.answer = out.answer || holdsAnswer
		sp := squash(p)
		holdsChunk := false
		for i, g := range gts {
			if sp != "" && (strings.Contains(sp, g) || (len(sp) >= minPassageBytes && strings.Contains(g, sp))) {
				found[i], holdsChunk = true, true
			}
		}
		if holdsChunk && out.rr == 0 {
			out.rr = 1 / float64(rank+1)
		}
		if holdsAnswer || holdsChunk {
			relevant++
		}
	}
	n := 0
	for _, f := range found {
		if f {
			n++
		}
	}
	out.hit = n > 0
	if len(gts) > 0 {
		out.recall = float64(n) / float64(len(gts))
	}
	if len(retrieved) > 0 {
		out.precision = float64(relevant) / float64(len(retrieved))
	}
	return out
}

// squash folds case and runs of white space, so that a service's own
// formatting of a passage does not hide a match.
func squash(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
