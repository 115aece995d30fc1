package perturb

import (
	"strconv"

	"github.com/robustream/robustream/schemas"
)

// AxisCross is the axis of the cross cells: a perturbed query asked over a
// perturbed context. RARE's overall robustness (eq. 1) averages f over every
// (query variant × context variant) pair, originals included; the original
// variant, the query kinds (× ground truth) and the document kinds
// (original query ×) fill the first row and column of that product, and the
// cross cells fill the rest. They have an axis of their own so that query
// robustness (eq. 2, axis query) and document robustness (eq. 3, axis
// document) leave them out while overall counts every axis.
const AxisCross = "cross"

// CrossKind is the kind of the cross cell of query kind q and document kind
// d: "q+d", e.g. "char+answer_removed".
func CrossKind(q, d string) string { return q + "+" + d }

// crossCells returns the cross cells of q: every variant of queries (axis
// query) over the contexts of every variant of contexts (axis document), in
// query-major order, each answering as its context variant does. With
// limit > 0 and more cells than that, limit of them are kept, chosen by a
// random source seeded by the question id so that a replay keeps the same
// cells. It also returns the sample as "kept/possible".
func crossCells(q *schemas.Question, seed string, queries, contexts []*schemas.Variant, limit int) ([]*schemas.Variant, string) {
	possible := len(queries) * len(contexts)
	kept := possible
	var keep []bool // nil: every cell
	if limit > 0 && possible > limit {
		kept = limit
		keep = make([]bool, possible)
		// Perm of a seeded PCG is fixed by math/rand/v2, so the sample
		// depends on the question id (and the cells made) only.
		for _, i := range NewRand(seed, AxisCross).Perm(possible)[:limit] {
			keep[i] = true
		}
	}
	cells := make([]*schemas.Variant, 0, kept)
	for i, qv := range queries {
		for j, dv := range contexts {
			if keep != nil && !keep[i*len(contexts)+j] {
				continue
			}
			cells = append(cells, newVariant(q, AxisCross, CrossKind(qv.Kind, dv.Kind), qv.Query, dv.Contexts, dv.AnswerAvailable))
		}
	}
	return cells, strconv.Itoa(kept) + "/" + strconv.Itoa(possible)
}
