package metrics

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// QuestionDetail is one question as the drill-down shows it: what it asks,
// the documents and ground-truth chunks it rests on, every variant with
// each model's answer, verdict and outcomes, each model's closed-book
// answer, and each model's mean per family and metric.
type QuestionDetail struct {
	Question   storedQuestion   `json:"question"`
	Documents  []DocumentRef    `json:"documents"`
	Chunks     []GroundChunk    `json:"chunks"`
	ClosedBook []ModelAnswer    `json:"closed_book"`
	Variants   []VariantAnswers `json:"variants"`
	Scores     []FamilyScore    `json:"scores"`
}

// GroundChunk is a ground-truth chunk of a question.
type GroundChunk struct {
	ChunkID    string `json:"chunk_id"`
	DocID      string `json:"doc_id"`
	DocVersion int64  `json:"doc_version"`
	Ordinal    int64  `json:"ordinal"`
	Title      string `json:"title"`
	Text       string `json:"text"`
}

// VariantAnswers is one variant of a question with the models' answers to
// it.
type VariantAnswers struct {
	VariantID       string        `json:"variant_id"`
	Axis            string        `json:"axis"`
	Kind            string        `json:"kind"`
	Query           string        `json:"query"`
	Contexts        []string      `json:"contexts"`
	ExpectedAnswer  string        `json:"expected_answer"`
	Aliases         []string      `json:"aliases"`
	AnswerAvailable bool          `json:"answer_available"`
	Answers         []ModelAnswer `json:"answers"`
}

// ModelAnswer is a model's newest answer to a variant (or closed book),
// its verdict and the outcomes pairing wrote for it.
type ModelAnswer struct {
	Model            string    `json:"model"`
	Answer           string    `json:"answer"`
	Verdict          string    `json:"verdict"`
	JudgeMethod      string    `json:"judge_method"`
	Error            string    `json:"error,omitempty"`
	LatencyMS        float64   `json:"latency_ms"`
	Retriever        string    `json:"retriever,omitempty"`
	Retrieved        []string  `json:"retrieved"`
	RetrievedSources []string  `json:"retrieved_sources"`
	RetrievedScores  []float64 `json:"retrieved_scores"`
	RetrievalHit     bool      `json:"retrieval_hit"`
	IndexState       string    `json:"index_state,omitempty"`
	EvaluatedAt      int64     `json:"evaluated_at"`
	// Attempts counts the answers stored for the variant and model (a
	// freshness ask repeated, a model revision); the newest is shown.
	Attempts int            `json:"attempts"`
	Outcomes []OutcomeValue `json:"outcomes"`
}

// OutcomeValue is one outcome row of an answer.
type OutcomeValue struct {
	Family string  `json:"family"`
	Metric string  `json:"metric"`
	Axis   string  `json:"axis"`
	Kind   string  `json:"kind"`
	Known  bool    `json:"known"`
	Golden bool    `json:"golden"`
	Value  float64 `json:"value"`
}

// FamilyScore is a model's mean outcome value of a question per family and
// metric.
type FamilyScore struct {
	Model  string `json:"model"`
	Family string `json:"family"`
	Metric string `json:"metric"`
	N      int64  `json:"n"`
	Mean   Score  `json:"mean"`
}

// LoadQuestion reads question id with everything the drill-down shows of
// it, the answers of model only when model is not empty. An id with no
// question is ErrNoQuestion; a bad value ErrBadFilter.
func LoadQuestion(ctx context.Context, q QueryFunc, id, model string) (QuestionDetail, error) {
	var d QuestionDetail
	if id == "" {
		return d, fmt.Errorf("%w: a question id is needed", ErrBadFilter)
	}
	if err := checkValue("question id", id); err != nil {
		return d, err
	}
	if err := checkValue("model", model); err != nil {
		return d, err
	}
	qs, err := loadQuestions(ctx, q, []string{id})
	if err != nil {
		return d, err
	}
	qr, ok := qs[id]
	if !ok {
		return d, ErrNoQuestion
	}
	if qr.Retired {
		var why []struct {
			Reason string `json:"reason"`
		}
		if err := jsonRows(ctx, q, `SELECT argMax(reason, produced_at) AS reason FROM robustream.question_retirements WHERE question_id = `+lit(id), &why); err != nil {
			return d, err
		}
		if len(why) == 1 {
			qr.RetiredReason = why[0].Reason
		}
	}
	if qr.Aliases == nil {
		qr.Aliases = []string{}
	}
	d.Question = qr
	docs, err := loadDocuments(ctx, q, qs)
	if err != nil {
		return d, err
	}
	d.Documents = docs.of(qr)
	d.Chunks = []GroundChunk{}
	if len(qr.GTChunkIDs) > 0 {
		if err := jsonRows(ctx, q, `SELECT chunk_id, doc_id, toUInt32(doc_version) AS doc_version, toUInt32(ordinal) AS ordinal, title, text
FROM robustream.chunks FINAL
WHERE chunk_id IN (`+litList(qr.GTChunkIDs)+`)
ORDER BY doc_id, ordinal`, &d.Chunks); err != nil {
			return d, err
		}
	}
	byModel := ""
	if model != "" {
		byModel = " AND model_id = " + lit(model)
	}
	var variants []struct {
		VariantAnswers
		Available uint8 `json:"available"`
	}
	if err := jsonRows(ctx, q, `SELECT variant_id, axis, kind, query, contexts, expected_answer, aliases, answer_available AS available
FROM robustream.variants FINAL
WHERE question_id = `+lit(id), &variants); err != nil {
		return d, err
	}
	var results []struct {
		ModelAnswer
		VariantID  string `json:"variant_id"`
		ClosedBook uint8  `json:"closed_book"`
		Hit        uint8  `json:"hit"`
	}
	if err := jsonRows(ctx, q, `SELECT variant_id, model_id AS model, closed_book, answer, `+verdictExpr+` AS verdict, judge_method, error, latency_ms,
    retriever, retrieved, retrieved_sources, retrieved_scores, retrieval_hit AS hit, index_state, toUInt32(evaluated_at) AS evaluated_at
FROM robustream.eval_results FINAL
WHERE question_id = `+lit(id)+byModel+`
ORDER BY evaluated_at, request_id`, &results); err != nil {
		return d, err
	}
	var outcomes []struct {
		OutcomeValue
		Model     string `json:"model_id"`
		VariantID string `json:"variant_id"`
		KnownFlag uint8  `json:"known_flag"`
		Gold      uint8  `json:"gold"`
	}
	if err := jsonRows(ctx, q, `SELECT toString(family) AS family, metric, model_id, variant_id, axis, kind, known AS known_flag, golden AS gold, value
FROM robustream.outcomes FINAL
WHERE question_id = `+lit(id)+byModel+`
ORDER BY family, metric`, &outcomes); err != nil {
		return d, err
	}

	// The newest answer per (variant, model); results come oldest first.
	type key struct{ variant, model string }
	newest := map[key]ModelAnswer{}
	var order []key
	closed := map[string]ModelAnswer{}
	for _, r := range results {
		a := r.ModelAnswer
		a.RetrievalHit = r.Hit == 1
		for _, p := range []*[]string{&a.Retrieved, &a.RetrievedSources} {
			if *p == nil {
				*p = []string{}
			}
		}
		if a.RetrievedScores == nil {
			a.RetrievedScores = []float64{}
		}
		a.Outcomes = []OutcomeValue{}
		if r.ClosedBook == 1 {
			a.Attempts = closed[a.Model].Attempts + 1
			closed[a.Model] = a
			continue
		}
		k := key{r.VariantID, a.Model}
		prev, seen := newest[k]
		if !seen {
			order = append(order, k)
		}
		a.Attempts = prev.Attempts + 1
		newest[k] = a
	}
	scores := map[[3]string]*FamilyScore{}
	var scoreKeys [][3]string
	for _, o := range outcomes {
		v := o.OutcomeValue
		v.Known, v.Golden = o.KnownFlag == 1, o.Gold == 1
		k := key{o.VariantID, o.Model}
		if a, ok := newest[k]; ok {
			a.Outcomes = append(a.Outcomes, v)
			newest[k] = a
		}
		sk := [3]string{o.Model, v.Family, v.Metric}
		if scores[sk] == nil {
			scores[sk] = &FamilyScore{Model: o.Model, Family: v.Family, Metric: v.Metric}
			scoreKeys = append(scoreKeys, sk)
		}
		s := scores[sk]
		s.Mean = Score((float64(s.Mean)*float64(s.N) + v.Value) / float64(s.N+1))
		s.N++
	}
	d.Variants = []VariantAnswers{}
	for _, v := range variants {
		va := v.VariantAnswers
		va.AnswerAvailable = v.Available == 1
		if va.Contexts == nil {
			va.Contexts = []string{}
		}
		if va.Aliases == nil {
			va.Aliases = []string{}
		}
		va.Answers = []ModelAnswer{}
		for _, k := range order {
			if k.variant == va.VariantID {
				va.Answers = append(va.Answers, newest[k])
			}
		}
		sort.Slice(va.Answers, func(i, j int) bool { return va.Answers[i].Model < va.Answers[j].Model })
		d.Variants = append(d.Variants, va)
	}
	sort.SliceStable(d.Variants, func(i, j int) bool {
		a, b := d.Variants[i], d.Variants[j]
		if ra, rb := axisRank(a.Axis), axisRank(b.Axis); ra != rb {
			return ra < rb
		}
		return a.Kind < b.Kind
	})
	d.ClosedBook = []ModelAnswer{}
	for _, a := range closed {
		d.ClosedBook = append(d.ClosedBook, a)
	}
	sort.Slice(d.ClosedBook, func(i, j int) bool { return d.ClosedBook[i].Model < d.ClosedBook[j].Model })
	d.Scores = []FamilyScore{}
	for _, k := range scoreKeys {
		d.Scores = append(d.Scores, *scores[k])
	}
	sort.Slice(d.Scores, func(i, j int) bool {
		a, b := d.Scores[i], d.Scores[j]
		return strings.Join([]string{a.Model, a.Family, a.Metric}, "\x00") < strings.Join([]string{b.Model, b.Family, b.Metric}, "\x00")
	})
	return d, nil
}

// axisRank orders variants as a reader follows them: the original first,
// then RARE's perturbations, then the other families' axes.
func axisRank(axis string) int {
	for i, a := range []string{"original", "query", "document", AxisCross, "retrieval", "spurious", "placeholder", "noise"} {
		if a == axis {
			return i
		}
	}
	return 100
}
