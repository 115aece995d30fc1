package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/robustream/robustream/schemas"
)

// Drill-down: the questions behind a score, and one question with every
// variant, answer and verdict (GET /api/questions, /api/questions/{id}).
// Every value of a filter comes from the client: it is checked here and
// written into the SQL only as a string literal (lit) or a number, so no
// value can end a literal or add a clause; the queries run on the engine's
// read-only path besides.

// Verdicts are what the judge said of one answer, as the drill-down names
// them: an error (the model never answered), a refusal, a correct or a
// wrong answer, in that order of precedence.
var Verdicts = []string{"correct", "wrong", "refused", "error"}

// verdictExpr is an eval_results row's verdict (Verdicts).
const verdictExpr = "multiIf(error != '', 'error', refused = 1, 'refused', correct = 1, 'correct', 'wrong')"

// ErrBadFilter marks a filter value the drill-down refuses (the client's
// mistake: 400).
var ErrBadFilter = errors.New("bad filter")

// ErrNoQuestion is returned for a question id with no question stored.
var ErrNoQuestion = errors.New("no such question")

// Page bounds of the question list.
const (
	DefaultQuestionLimit = 50
	MaxQuestionLimit     = 500
	maxFilterBytes       = 512
)

// QuestionFilter selects the questions behind a score: the outcome rows of
// Family (RARE when empty and no axis says otherwise) of Model, Axis, Kind,
// Pattern and Hops in Window, of questions that rest on Document and whose
// answers in that cell include one with Verdict. Empty fields select
// everything.
type QuestionFilter struct {
	Model, Family, Axis, Kind, Verdict, Document, Pattern string
	// Hops is the question's hop count; 0 is any.
	Hops int
	// DRMin and DRMax bound the question's D_r (inclusive) when set.
	DRMin, DRMax *float64
	// Quartile (1 to 4; 0 is any) keeps the questions of that D_r
	// quartile of GRADE's matrix over the window (its own ranking, so
	// that a cell's questions are exactly those it counts: ties in D_r
	// can straddle two quartiles).
	Quartile int
	// Window bounds evaluated_at (AllTime: every outcome).
	Window Window
	// Limit and Offset page the list, ordered by score (worst first),
	// then question id.
	Limit, Offset int
}

// check validates f and fills its defaults: the family (from the axis
// when one is named), the limit.
func (f *QuestionFilter) check() (Family, error) {
	for name, v := range map[string]string{"model": f.Model, "family": f.Family, "axis": f.Axis, "kind": f.Kind,
		"verdict": f.Verdict, "document": f.Document, "pattern": f.Pattern} {
		if err := checkValue(name, v); err != nil {
			return Family{}, err
		}
	}
	if f.Verdict != "" && !contains(Verdicts, f.Verdict) {
		return Family{}, fmt.Errorf("%w: verdict must be one of %s", ErrBadFilter, strings.Join(Verdicts, ", "))
	}
	if f.Hops < 0 || f.Hops > 255 {
		return Family{}, fmt.Errorf("%w: hops must be 1 to 255", ErrBadFilter)
	}
	for _, b := range []*float64{f.DRMin, f.DRMax} {
		if b != nil && !(*b >= 0 && *b <= 1) {
			return Family{}, fmt.Errorf("%w: dr_min and dr_max must be numbers from 0 to 1", ErrBadFilter)
		}
	}
	if f.Quartile < 0 || f.Quartile > 4 {
		return Family{}, fmt.Errorf("%w: quartile must be 1 to 4", ErrBadFilter)
	}
	if f.Limit == 0 {
		f.Limit = DefaultQuestionLimit
	}
	if f.Limit < 1 || f.Limit > MaxQuestionLimit {
		return Family{}, fmt.Errorf("%w: limit must be 1 to %d", ErrBadFilter, MaxQuestionLimit)
	}
	if f.Offset < 0 || f.Offset > 10_000_000 {
		return Family{}, fmt.Errorf("%w: offset must be 0 to 10000000", ErrBadFilter)
	}
	if f.Family == "" {
		f.Family = schemas.FamilyRARE
		for _, fam := range Families {
			if f.Axis != "" && fam.Scores(f.Axis) {
				f.Family = fam.Name
				break
			}
		}
	}
	fam, ok := Named(f.Family)
	if !ok {
		names := make([]string, len(Families))
		for i, x := range Families {
			names[i] = x.Name
		}
		return Family{}, fmt.Errorf("%w: family must be one of %s", ErrBadFilter, strings.Join(names, ", "))
	}
	return fam, nil
}

func checkValue(name, v string) error {
	switch {
	case len(v) > maxFilterBytes:
		return fmt.Errorf("%w: %s is longer than %d bytes", ErrBadFilter, name, maxFilterBytes)
	case !utf8.ValidString(v):
		return fmt.Errorf("%w: %s is not UTF-8", ErrBadFilter, name)
	case strings.ContainsRune(v, 0):
		return fmt.Errorf("%w: %s holds a NUL byte", ErrBadFilter, name)
	}
	return nil
}

func contains(vs []string, v string) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// lit renders s as a ClickHouse string literal: every backslash and quote
// escaped, so that nothing in s can end the literal (checkValue has
// refused NUL bytes and invalid UTF-8 before).
func lit(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// scoreRows selects the outcome rows whose mean is f's score of a
// question: its series (RARE's f, GRADE's correctness, PRGB's task
// scores), else one row per scored cell (SURE's signed change c).
func (f Family) scoreRows() string {
	switch {
	case f.Series != "":
		return f.Series
	case f.Cells != "":
		return f.Cells
	}
	return f.Selection
}

// kindsOf are the eval_results kinds of an outcome kind: SURE records the
// instance of a noise context under the kind without its _noise suffix.
func kindsOf(kind string) string {
	return lit(kind) + ", " + lit(kind+"_noise") + ", " + lit(strings.TrimSuffix(kind, "_noise"))
}

// resultConds are the conditions on eval_results rows of the answers in
// f's cell (closed-book answers aside).
func (f QuestionFilter) resultConds() []string {
	c := []string{"closed_book = 0"}
	if f.Model != "" {
		c = append(c, "model_id = "+lit(f.Model))
	}
	if f.Axis != "" {
		c = append(c, "axis = "+lit(f.Axis))
	}
	if f.Kind != "" {
		c = append(c, "kind IN ("+kindsOf(f.Kind)+")")
	}
	return append(c, f.Window.conds()...)
}

// outcomeConds are the conditions on outcome rows of f.
func (f QuestionFilter) outcomeConds(fam Family) []string {
	c := []string{"(" + fam.scoreRows() + ")"}
	if f.Model != "" {
		c = append(c, "model_id = "+lit(f.Model))
	}
	if f.Axis != "" {
		c = append(c, "axis = "+lit(f.Axis))
	}
	if f.Kind != "" {
		c = append(c, "kind IN ("+lit(f.Kind)+", "+lit(strings.TrimSuffix(f.Kind, "_noise"))+")")
	}
	if f.Pattern != "" {
		c = append(c, "pattern = "+lit(f.Pattern))
	}
	if f.Hops > 0 {
		c = append(c, "hops = "+strconv.Itoa(f.Hops))
	}
	if f.DRMin != nil {
		c = append(c, "d_r >= "+strconv.FormatFloat(*f.DRMin, 'g', -1, 64))
	}
	if f.DRMax != nil {
		c = append(c, "d_r <= "+strconv.FormatFloat(*f.DRMax, 'g', -1, 64))
	}
	if f.Quartile > 0 {
		c = append(c, "question_id IN (SELECT row_question FROM\n(\n"+gradeRanked(f.Window, "dr_agg = 'min'")+
			"\n) WHERE dr_quartile = "+strconv.Itoa(f.Quartile)+")")
	}
	c = append(c, f.Window.conds()...)
	if f.Verdict != "" {
		c = append(c, "question_id IN (SELECT question_id FROM robustream.eval_results FINAL WHERE "+
			strings.Join(f.resultConds(), " AND ")+" AND "+verdictExpr+" = "+lit(f.Verdict)+")")
	}
	if f.Document != "" {
		d := lit(f.Document)
		c = append(c, "(question_id IN (SELECT question_id FROM robustream.questions FINAL WHERE doc_id = "+d+")"+
			" OR question_id IN (SELECT question_id FROM robustream.questions FINAL ARRAY JOIN gt_chunk_ids AS gt_chunk"+
			" WHERE gt_chunk IN (SELECT chunk_id FROM robustream.chunks FINAL WHERE doc_id = "+d+")))")
	}
	return c
}

// QuestionsQuery is the page of f's questions: per question, each model's
// outcome count and sum over the filter, ordered by the pooled mean (worst
// first), then question id.
func QuestionsQuery(f QuestionFilter) (string, error) {
	fam, err := f.check()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(`SELECT question_id, groupArray(model_id) AS models, groupArray(cnt) AS ns, groupArray(total) AS sums
FROM
(
    SELECT question_id, model_id, toUInt32(count()) AS cnt, sum(value) AS total
    FROM robustream.outcomes FINAL
    WHERE %s
    GROUP BY question_id, model_id
    ORDER BY model_id
)
GROUP BY question_id
ORDER BY sum(total) / sum(cnt), question_id
LIMIT %d, %d`, strings.Join(f.outcomeConds(fam), "\n      AND "), f.Offset, f.Limit), nil
}

// QuestionPage is one page of the question list.
type QuestionPage struct {
	// Family is the family whose outcomes were read (the filter's, or the
	// one its axis implies).
	Family string `json:"family"`
	// Total counts the questions the filter selects; NextOffset is the
	// offset of the next page, absent on the last.
	Total      int64          `json:"total"`
	Offset     int            `json:"offset"`
	Limit      int            `json:"limit"`
	NextOffset *int           `json:"next_offset"`
	Items      []QuestionItem `json:"items"`
}

// QuestionItem is one question of the list.
type QuestionItem struct {
	QuestionID string        `json:"question_id"`
	Question   string        `json:"question"`
	Answer     string        `json:"answer"`
	Pattern    string        `json:"pattern"`
	Hops       int           `json:"hops"`
	DR         Score         `json:"d_r"`
	Retired    bool          `json:"retired,omitempty"`
	Documents  []DocumentRef `json:"documents"`
	// Scores are each model's mean outcome value over the filter's rows,
	// with their count, and its verdicts in the filter's cell.
	Scores []ModelScore `json:"scores"`
}

// DocumentRef names a document (its newest version).
type DocumentRef struct {
	DocID   string `json:"doc_id"`
	Version int64  `json:"version"`
	Title   string `json:"title"`
	URI     string `json:"uri"`
}

// ModelScore is one model's score of a question under a filter.
type ModelScore struct {
	Model string `json:"model"`
	N     int64  `json:"n"`
	Score Score  `json:"score"`
	// Verdicts count the model's answers in the cell by verdict.
	Verdicts map[string]int64 `json:"verdicts"`
}

// ListQuestions runs f's page: the questions, their documents, scores and
// verdicts. A bad filter value is an error wrapping ErrBadFilter.
func ListQuestions(ctx context.Context, q QueryFunc, f QuestionFilter) (QuestionPage, error) {
	sql, err := QuestionsQuery(f)
	if err != nil {
		return QuestionPage{}, err
	}
	fam, _ := f.check() // the defaults QuestionsQuery filled in its copy
	page := QuestionPage{Family: fam.Name, Offset: f.Offset, Limit: f.Limit, Items: []QuestionItem{}}
	var count []struct {
		N int64 `json:"n"`
	}
	if err := jsonRows(ctx, q, `SELECT toUInt32(uniqExact(question_id)) AS n FROM robustream.outcomes FINAL WHERE `+
		strings.Join(f.outcomeConds(fam), " AND "), &count); err != nil {
		return page, err
	}
	if len(count) == 1 {
		page.Total = count[0].N
	}
	var rows []struct {
		QuestionID string    `json:"question_id"`
		Models     []string  `json:"models"`
		Ns         []int64   `json:"ns"`
		Sums       []float64 `json:"sums"`
	}
	if err := jsonRows(ctx, q, sql, &rows); err != nil {
		return page, err
	}
	if next := f.Offset + len(rows); int64(next) < page.Total && len(rows) == f.Limit {
		page.NextOffset = &next
	}
	if len(rows) == 0 {
		return page, nil
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.QuestionID
	}
	qs, err := loadQuestions(ctx, q, ids)
	if err != nil {
		return page, err
	}
	docs, err := loadDocuments(ctx, q, qs)
	if err != nil {
		return page, err
	}
	var verdicts []struct {
		QuestionID string `json:"question_id"`
		Model      string `json:"model_id"`
		Verdict    string `json:"verdict"`
		N          int64  `json:"n"`
	}
	if err := jsonRows(ctx, q, `SELECT question_id, model_id, `+verdictExpr+` AS verdict, toUInt32(count()) AS n
FROM robustream.eval_results FINAL
WHERE question_id IN (`+litList(ids)+`) AND `+strings.Join(f.resultConds(), " AND ")+`
GROUP BY question_id, model_id, verdict`, &verdicts); err != nil {
		return page, err
	}
	for _, r := range rows {
		item := QuestionItem{QuestionID: r.QuestionID, Documents: []DocumentRef{}, Scores: []ModelScore{}}
		if qr, ok := qs[r.QuestionID]; ok {
			item.Question, item.Answer, item.Pattern, item.Hops, item.DR, item.Retired = qr.Question, qr.Answer, qr.Pattern, qr.Hops, qr.DR, qr.Retired
			item.Documents = docs.of(qr)
		}
		for i, m := range r.Models {
			s := ModelScore{Model: m, N: r.Ns[i], Score: NaN, Verdicts: map[string]int64{}}
			if s.N > 0 {
				s.Score = Score(r.Sums[i] / float64(s.N))
			}
			for _, v := range verdicts {
				if v.QuestionID == r.QuestionID && v.Model == m {
					s.Verdicts[v.Verdict] += v.N
				}
			}
			item.Scores = append(item.Scores, s)
		}
		page.Items = append(page.Items, item)
	}
	return page, nil
}

// storedQuestion is a questions row as the drill-down shows it.
type storedQuestion struct {
	QuestionID  string   `json:"question_id"`
	Question    string   `json:"question"`
	Answer      string   `json:"answer"`
	Aliases     []string `json:"aliases"`
	Pattern     string   `json:"pattern"`
	Hops        int      `json:"hops"`
	DR          Score    `json:"d_r"`
	SimFunc     string   `json:"sim_func"`
	Generator   string   `json:"generator"`
	Pivot       string   `json:"pivot"`
	DocID       string   `json:"doc_id"`
	Domain      string   `json:"domain"`
	PublishedAt int64    `json:"published_at"`
	GTChunkIDs  []string `json:"gt_chunk_ids"`
	// GTDocIDs are the documents of the ground-truth chunks.
	GTDocIDs      []string `json:"gt_doc_ids"`
	Retired       bool     `json:"retired"`
	RetiredReason string   `json:"retired_reason,omitempty"`
}

// loadQuestions reads the questions of ids, each with whether it is
// retired and the documents of its ground-truth chunks.
func loadQuestions(ctx context.Context, q QueryFunc, ids []string) (map[string]storedQuestion, error) {
	var rows []struct {
		storedQuestion
		RetiredFlag uint8 `json:"retired_flag"`
	}
	if err := jsonRows(ctx, q, `SELECT question_id, question, answer, aliases, pattern, toUInt32(hops) AS hops, d_r, sim_func, generator, pivot,
    doc_id, domain, toUInt32(published_at) AS published_at, gt_chunk_ids,
    toUInt8(question_id IN (SELECT question_id FROM robustream.question_retirements)) AS retired_flag
FROM robustream.questions FINAL
WHERE question_id IN (`+litList(ids)+`)`, &rows); err != nil {
		return nil, err
	}
	out := make(map[string]storedQuestion, len(rows))
	var chunks []string
	for _, r := range rows {
		r.Retired = r.RetiredFlag == 1
		out[r.QuestionID] = r.storedQuestion
		chunks = append(chunks, r.GTChunkIDs...)
	}
	if len(chunks) == 0 {
		return out, nil
	}
	var owners []struct {
		ChunkID string `json:"chunk_id"`
		DocID   string `json:"doc_id"`
	}
	if err := jsonRows(ctx, q, `SELECT DISTINCT chunk_id, doc_id FROM robustream.chunks FINAL WHERE chunk_id IN (`+litList(chunks)+`)`, &owners); err != nil {
		return nil, err
	}
	docOf := map[string]string{}
	for _, o := range owners {
		docOf[o.ChunkID] = o.DocID
	}
	for id, r := range out {
		for _, c := range r.GTChunkIDs {
			if d := docOf[c]; d != "" && !contains(r.GTDocIDs, d) {
				r.GTDocIDs = append(r.GTDocIDs, d)
			}
		}
		out[id] = r
	}
	return out, nil
}

// documentSet holds the newest version of documents by id.
type documentSet map[string]DocumentRef

// of lists the documents a question rests on: its own, then those of its
// ground-truth chunks.
func (ds documentSet) of(r storedQuestion) []DocumentRef {
	refs := []DocumentRef{}
	for _, id := range append([]string{r.DocID}, r.GTDocIDs...) {
		if id == "" || slicesHas(refs, id) {
			continue
		}
		d, ok := ds[id]
		if !ok {
			d = DocumentRef{DocID: id}
		}
		refs = append(refs, d)
	}
	return refs
}

func slicesHas(refs []DocumentRef, id string) bool {
	for _, r := range refs {
		if r.DocID == id {
			return true
		}
	}
	return false
}

// loadDocuments reads the newest version of every document qs rest on.
func loadDocuments(ctx context.Context, q QueryFunc, qs map[string]storedQuestion) (documentSet, error) {
	var ids []string
	for _, r := range qs {
		for _, id := range append([]string{r.DocID}, r.GTDocIDs...) {
			if id != "" && !contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	ds := documentSet{}
	if len(ids) == 0 {
		return ds, nil
	}
	var rows []struct {
		DocumentRef
		Newest int64 `json:"newest"`
	}
	if err := jsonRows(ctx, q, `SELECT doc_id, toUInt32(max(version)) AS newest, argMax(title, version) AS title, argMax(uri, version) AS uri
FROM robustream.documents FINAL
WHERE doc_id IN (`+litList(ids)+`)
GROUP BY doc_id`, &rows); err != nil {
		return nil, err
	}
	for _, d := range rows {
		d.Version = d.Newest
		ds[d.DocID] = d.DocumentRef
	}
	return ds, nil
}

// litList is a SQL list of string literals.
func litList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = lit(v)
	}
	return strings.Join(q, ", ")
}

// jsonRows runs sql with JSONEachRow output and decodes each row into an
// element appended to *dst.
func jsonRows[T any](ctx context.Context, q QueryFunc, sql string, dst *[]T) error {
	out, err := q(ctx, sql, "JSONEachRow")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(out), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			return fmt.Errorf("metrics: cannot read row %.200q: %w", line, err)
		}
		*dst = append(*dst, v)
	}
	return nil
}
