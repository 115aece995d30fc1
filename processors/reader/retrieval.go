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

// judgeRetrieval fills what a model that retrieves its own contexts is
// judged on besides its answer (RARE §3.3.4: answer availability is
// computed from the retrieved text): the passages it reports, whether they
// hold an accepted answer (AnswerAvailable, which RARE's f then uses), and
// whether a ground-truth chunk is among them (RetrievalHit: the passage is
// the chunk, contains it, or is a long enough piece of it).
func judgeRetrieval(res *schemas.EvalResult, retrieved, groundTruth, accepted []string) {
	res.Retrieved = retrieved
	answers := text.NewAnswers(accepted)
	res.AnswerAvailable, res.RetrievalHit = false, false
	gts := make([]string, len(groundTruth))
	for i, g := range groundTruth {
		gts[i] = squash(g)
	}
	for _, p := range retrieved {
		if answers.TokenSeq(p) {
			res.AnswerAvailable = true
		}
		sp := squash(p)
		for _, g := range gts {
			if g != "" && sp != "" && (strings.Contains(sp, g) || (len(sp) >= minPassageBytes && strings.Contains(g, sp))) {
				res.RetrievalHit = true
			}
		}
	}
}

// squash folds case and runs of white space, so that a service's own
// formatting of a passage does not hide a match.
func squash(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
