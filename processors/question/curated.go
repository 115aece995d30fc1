package question

import "github.com/robustream/robustream/schemas"

// ScoreCurated sets what the question stage computes for a question it did
// not generate (a team's curated question, sources/goldens): D_r with the
// lexical cosine over its ground-truth chunks (GRADE eq. 1), and the mean
// and power-mean aggregations in qa_scores (docs/methods.md, Question
// synthesis and QA checks).
func ScoreCurated(q *schemas.Question) {
	sims := make([]float64, len(q.GTChunks))
	for i, c := range q.GTChunks {
		sims[i] = LexicalSimilarity(q.Question, c)
	}
	drMin, drMean, drPower := drAggregates(sims)
	q.DR, q.SimFunc = drMin, SimLexicalCosine
	if q.QAScores == nil {
		q.QAScores = map[string]float64{}
	}
	q.QAScores[ScoreDRMean], q.QAScores[ScoreDRPowerMean] = drMean, drPower
}
