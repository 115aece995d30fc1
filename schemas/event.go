package schemas

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/segmentio/encoding/json"
)

// Version is the schema version this build writes and accepts.
const Version = 1

// ErrUnknownVersion is returned by Decode for an event whose schema_version
// this build does not understand. Stages dead-letter such messages.
var ErrUnknownVersion = errors.New("unknown schema version")

// ErrInvalid is returned by Decode for a payload that is not a valid event.
var ErrInvalid = errors.New("invalid event")

// Meta is the envelope every event embeds.
type Meta struct {
	SchemaVersion int       `json:"schema_version"`
	ID            string    `json:"id"`
	ProducedAt    time.Time `json:"produced_at"`
	Lineage       []string  `json:"lineage,omitempty"`
}

// Event is implemented by every event type; Stamp fills its envelope.
type Event interface {
	meta() *Meta
	// Key is the Kafka key the event is written under (docs/architecture.md,
	// Topics and events).
	Key() string
}

// Stamp sets the envelope of e: schema version, id, production time and
// lineage. The id is the caller's deterministic content hash.
func Stamp(e Event, id string, lineage ...string) {
	m := e.meta()
	m.SchemaVersion = Version
	m.ID = id
	if m.ProducedAt.IsZero() {
		m.ProducedAt = time.Now().UTC()
	}
	m.Lineage = lineage
}

// ID derives a deterministic id from the defining content of an event: the
// first 16 bytes of SHA-256 over the parts, each length-prefixed so that
// ("ab","c") and ("a","bc") differ.
func ID(parts ...string) string {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		l := len(p)
		for i := range n {
			n[i] = byte(l >> (8 * i))
		}
		h.Write(n[:])
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Encode marshals an event to JSON.
func Encode(e Event) ([]byte, error) {
	return json.Marshal(e)
}

// Decode unmarshals JSON into e and checks its schema version.
func Decode(b []byte, e Event) error {
	if err := json.Unmarshal(b, e); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	v := e.meta().SchemaVersion
	if v != Version {
		return fmt.Errorf("%w: got %d, this build reads %d", ErrUnknownVersion, v, Version)
	}
	return nil
}

func (m *Meta) meta() *Meta { return m }

// DocumentVersion is one version of a source document (topic rs.documents).
type DocumentVersion struct {
	Meta
	DocID       string            `json:"doc_id"`
	Version     uint32            `json:"version"`
	Source      string            `json:"source"`
	URI         string            `json:"uri"`
	Title       string            `json:"title"`
	Domain      string            `json:"domain"`
	PublishedAt time.Time         `json:"published_at"`
	FetchedAt   time.Time         `json:"fetched_at"`
	ContentHash string            `json:"content_hash"`
	MIME        string            `json:"mime"`
	Text        string            `json:"text"`
	Metadata    map[string]string `json:"metadata,omitempty"`
}

// Key implements Event.
func (d *DocumentVersion) Key() string { return d.DocID }

// Chunk is a piece of a document version (topic rs.chunks).
type Chunk struct {
	Meta
	ChunkID    string `json:"chunk_id"`
	DocID      string `json:"doc_id"`
	DocVersion uint32 `json:"doc_version"`
	Ordinal    uint32 `json:"ordinal"`
	// Chunks is how many chunks the document version has, so that a
	// consumer can tell when it has seen all of them (the knowledge graph
	// retires a version's edges only then).
	Chunks      uint32    `json:"chunks,omitempty"`
	Text        string    `json:"text"`
	Tokens      uint32    `json:"tokens"`
	Kind        string    `json:"kind"` // text or table
	SpanStart   uint32    `json:"span_start"`
	SpanEnd     uint32    `json:"span_end"`
	Title       string    `json:"title"`
	Domain      string    `json:"domain"`
	PublishedAt time.Time `json:"published_at"`
	// Split says how the chunk was cut out of a paragraph or table longer
	// than the chunk budget: "" it was not (whole paragraphs, or a whole
	// table), "sentence" between sentences or lines of one paragraph,
	// "row" between rows of one table, "word" between words of one
	// sentence or row, or inside one word between its tokens. A "row"
	// chunk other than a table's first repeats the table's header rows
	// before the text at span_start:span_end.
	Split string `json:"split,omitempty"`
}

// Key implements Event.
func (c *Chunk) Key() string { return c.DocID }

// Triplet is a knowledge-graph edge extracted from a chunk (topic rs.triplets).
// ChunkText carries the evidence along so that question synthesis stays
// stateless.
type Triplet struct {
	Meta
	TripletID      string `json:"triplet_id"`
	Head           string `json:"head"`
	Relation       string `json:"relation"`
	Tail           string `json:"tail"`
	ChunkID        string `json:"chunk_id"`
	DocID          string `json:"doc_id"`
	SourceSentence string `json:"source_sentence"`
	// Kind says how the fact was stated, so that a question can be phrased
	// for it: "" or "verb" (a subject–verb–object clause), "copula",
	// "attribute" (a possessive or appositive: "Y's chief executive, Z"),
	// or "table" (row entity, column header, cell).
	Kind       string `json:"kind,omitempty"`
	DocVersion uint32 `json:"doc_version,omitempty"`
	// End marks the record that closes a chunk: it states no fact, comes
	// after the chunk's triplets in their partition, and carries Chunks,
	// the number of chunks of the document version, so that a consumer
	// knows when it has seen a whole version. It is not stored.
	End         bool      `json:"end,omitempty"`
	Chunks      uint32    `json:"chunks,omitempty"`
	Extractor   string    `json:"extractor"`
	ChunkText   string    `json:"chunk_text"`
	Domain      string    `json:"domain"`
	PublishedAt time.Time `json:"published_at"`
}

// Key implements Event.
func (t *Triplet) Key() string { return t.DocID }

// Pattern values: RARE §4.3's single-hop, chained, star and inverted-star
// patterns, and GRADE's k-hop paths (docs/methods.md, Question synthesis and
// QA checks).
const (
	PatternSingle       = "single"
	PatternChain        = "chain"
	PatternStar         = "star"
	PatternInvertedStar = "inverted_star"
	PatternPath         = "path"
)

// Question is a generated question with a known answer (topic rs.questions).
// GTChunks holds the ground-truth chunk texts, in GTChunkIDs order.
type Question struct {
	Meta
	QuestionID  string             `json:"question_id"`
	Question    string             `json:"question"`
	Answer      string             `json:"answer"`
	Aliases     []string           `json:"aliases,omitempty"`
	Pattern     string             `json:"pattern"`
	Hops        uint8              `json:"hops"`
	TripletIDs  []string           `json:"triplet_ids"`
	GTChunkIDs  []string           `json:"gt_chunk_ids"`
	GTChunks    []string           `json:"gt_chunks"`
	Pivot       string             `json:"pivot,omitempty"`
	QAScores    map[string]float64 `json:"qa_scores,omitempty"`
	DR          float64            `json:"d_r"`
	SimFunc     string             `json:"sim_func"`
	Generator   string             `json:"generator"`
	DocID       string             `json:"doc_id"`
	Domain      string             `json:"domain"`
	PublishedAt time.Time          `json:"published_at"`
	// Retired, when set, says why the question left evaluation (its facts
	// changed or became ambiguous); the record's produced_at is when. A
	// retired question stays in history and is evaluated no more.
	Retired string `json:"retired,omitempty"`
	// PRGB is the graph's material for PRGB's placeholder variants
	// (prgb.go); nil for questions not built from the graph.
	PRGB *PRGBFacts `json:"prgb,omitempty"`
}

// Key implements Event.
func (q *Question) Key() string { return q.QuestionID }

// Accepted returns the answer and its aliases.
func (q *Question) Accepted() []string { return append([]string{q.Answer}, q.Aliases...) }

// Axis values (docs/methods.md, Perturbations).
const (
	AxisOriginal    = "original"
	AxisQuery       = "query"
	AxisDocument    = "document"
	AxisRetrieval   = "retrieval"
	AxisSpurious    = "spurious"
	AxisPlaceholder = "placeholder"
	AxisNoise       = "noise"
	// AxisClosedBook marks the no-context request of the fan-out; it is not a
	// variant but is paired with them.
	AxisClosedBook = "closed_book"
)

// QuestionRef is what every downstream event keeps of its question so that
// pairing and outcomes need no lookups.
type QuestionRef struct {
	QuestionID  string    `json:"question_id"`
	Pattern     string    `json:"pattern"`
	Hops        uint8     `json:"hops"`
	Domain      string    `json:"domain"`
	PublishedAt time.Time `json:"published_at"`
	DR          float64   `json:"d_r"`
}

// Ref returns the QuestionRef of q.
func (q *Question) Ref() QuestionRef {
	return QuestionRef{QuestionID: q.QuestionID, Pattern: q.Pattern, Hops: q.Hops, Domain: q.Domain, PublishedAt: q.PublishedAt, DR: q.DR}
}

// Variant is one (query, context) perturbation of a question (topic
// rs.variants). Manifest lists the slots of the question's variant set
// (manifest.go), so that pairing knows when a set is complete; SetSize is
// its length, kept for records written before manifests existed. A variant
// with a NotMadeReason is a marker for a declared slot its producer could
// not fill: it has no query and is not stored in the variants table.
type Variant struct {
	Meta
	QuestionRef
	VariantID       string   `json:"variant_id"`
	Axis            string   `json:"axis"`
	Kind            string   `json:"kind"`
	Query           string   `json:"query"`
	Contexts        []string `json:"contexts"`
	ExpectedAnswer  string   `json:"expected_answer"`
	Aliases         []string `json:"aliases,omitempty"`
	AnswerAvailable bool     `json:"answer_available"`
	Manifest        []string `json:"manifest,omitempty"`
	SetSize         int      `json:"set_size"`
	NotMadeReason   string   `json:"not_made,omitempty"`
	// CrossSample is the share of the question's cross cells (perturbed
	// query × perturbed context, RARE eq. 1) that were made, as
	// "kept/possible" ("3/3"; "2/6" when capped by perturb's
	// max_cross_cells), the same on every variant of the question, so that
	// an overall score can say which sample it averages. Empty on records
	// written before cross cells existed.
	CrossSample string `json:"cross_sample,omitempty"`
	// GroundTruth, on a variant of a built-in retriever (axis retrieval),
	// holds the question's ground-truth chunks, the original variant's
	// contexts, which its retrieved Contexts are judged against;
	// RetrievedSources and RetrievedScores are the retrieved chunks'
	// sources and scores (docs/methods.md, Retrieval metrics). Fan-out
	// copies them onto the requests.
	GroundTruth      []string  `json:"ground_truth,omitempty"`
	RetrievedSources []string  `json:"retrieved_sources,omitempty"`
	RetrievedScores  []float64 `json:"retrieved_scores,omitempty"`
	// Model, when set, is the one model under test this variant is for:
	// its context was written by that model (SURE's source_self), so
	// fan-out asks it of that model alone (Variant.ForModel). Empty: every
	// model.
	Model string `json:"model,omitempty"`
}

// Key implements Event.
func (v *Variant) Key() string { return v.QuestionID }

// Accepted returns the expected answer and its aliases.
func (v *Variant) Accepted() []string { return append([]string{v.ExpectedAnswer}, v.Aliases...) }

// EvalRequest asks one model one variant (topic rs.eval.requests). Manifest
// is the question's (see Variant); Expected is the number of results that
// complete the (model, question) set, for records written before manifests.
// A request with a NotMadeReason stands for a slot that was not filled: it
// is answered with an error result, never sent to the model.
type EvalRequest struct {
	Meta
	QuestionRef
	RequestID  string `json:"request_id"`
	ModelID    string `json:"model_id"`
	VariantID  string `json:"variant_id"`
	ClosedBook bool   `json:"closed_book"`
	// System is the system message of a model's own prompt (models.yaml
	// prompt.system), empty for the built-in prompts.
	System          string   `json:"system,omitempty"`
	Prompt          string   `json:"prompt"`
	Query           string   `json:"query"`
	Contexts        []string `json:"contexts,omitempty"`
	Accepted        []string `json:"accepted"`
	Axis            string   `json:"axis"`
	Kind            string   `json:"kind"`
	AnswerAvailable bool     `json:"answer_available"`
	Manifest        []string `json:"manifest,omitempty"`
	Expected        int      `json:"expected"`
	NotMadeReason   string   `json:"not_made,omitempty"`
	// Retrieves marks a request to a model that retrieves its own contexts
	// (a RAG service): only the original and query-axis variants are sent
	// to it, with no closed-book request, and Contexts are the ground
	// truth its retrieval is judged against, not sent.
	Retrieves bool `json:"retrieves,omitempty"`
	// CrossSample is the variant's (Variant.CrossSample), copied by fan-out.
	CrossSample string `json:"cross_sample,omitempty"`
	// FamilySample says, per metric family, which share of the question's
	// cells of that family fan-out asked, as "asked/made" ("3/10" when
	// stages.fanout.families.<name>.max_cells_per_question capped it), the
	// same on every request of the question, so that a family's scores can
	// say which sample they average. Empty on records written before caps.
	FamilySample map[string]string `json:"family_sample,omitempty"`
	// GroundTruth, RetrievedSources and RetrievedScores are the variant's
	// (Variant.GroundTruth), copied by fan-out.
	GroundTruth      []string  `json:"ground_truth,omitempty"`
	RetrievedSources []string  `json:"retrieved_sources,omitempty"`
	RetrievedScores  []float64 `json:"retrieved_scores,omitempty"`
}

// Key implements Event.
func (r *EvalRequest) Key() string { return r.QuestionID }

// EvalResult is a judged answer (topic rs.eval.results).
type EvalResult struct {
	Meta
	QuestionRef
	RequestID       string   `json:"request_id"`
	ModelID         string   `json:"model_id"`
	VariantID       string   `json:"variant_id"`
	ClosedBook      bool     `json:"closed_book"`
	Axis            string   `json:"axis"`
	Kind            string   `json:"kind"`
	AnswerAvailable bool     `json:"answer_available"`
	Manifest        []string `json:"manifest,omitempty"`
	// Retrieves, Retrieved and RetrievalHit are set for a model that
	// retrieves its own contexts: the passages it reports, and whether a
	// ground-truth chunk is among them. AnswerAvailable then says whether
	// its passages hold the answer.
	Retrieves    bool      `json:"retrieves,omitempty"`
	Retrieved    []string  `json:"retrieved,omitempty"`
	RetrievalHit bool      `json:"retrieval_hit,omitempty"`
	Expected     int       `json:"expected"`
	Answer       string    `json:"answer"`
	Refused      bool      `json:"refused"`
	Correct      bool      `json:"correct"`
	JudgeMethod  string    `json:"judge_method"`
	Similarity   float64   `json:"similarity"`
	LatencyMS    float64   `json:"latency_ms"`
	TokensIn     uint32    `json:"tokens_in"`
	TokensOut    uint32    `json:"tokens_out"`
	Error        string    `json:"error,omitempty"`
	EvaluatedAt  time.Time `json:"evaluated_at"`
	// FamilySample is the request's (EvalRequest.FamilySample), carried so
	// that pairing and the metrics know the sample a result belongs to.
	FamilySample map[string]string `json:"family_sample,omitempty"`

	// Retriever names what retrieved the passages of Retrieved:
	// RetrieverService for a model that retrieves its own, the kind of a
	// built-in retriever's variant (bm25_top3); empty when nothing was
	// retrieved. RetrievedSources and RetrievedScores are the passages'
	// sources and scores where the retriever gives them (empty, or one per
	// passage). RetrievalRecall, RetrievalPrecision and RetrievalRR are
	// the result's retrieval metrics (docs/methods.md, Retrieval metrics).
	Retriever          string    `json:"retriever,omitempty"`
	RetrievedSources   []string  `json:"retrieved_sources,omitempty"`
	RetrievedScores    []float64 `json:"retrieved_scores,omitempty"`
	RetrievalRecall    float64   `json:"retrieval_recall,omitempty"`
	RetrievalPrecision float64   `json:"retrieval_precision,omitempty"`
	RetrievalRR        float64   `json:"retrieval_rr,omitempty"`
	// IndexState is IndexNotIndexed for a result asked before the service
	// had indexed the question's document (docs/methods.md, Freshness):
	// stored, asked again later, and kept out of the robustness scores.
	IndexState string `json:"index_state,omitempty"`
}

// Key implements Event.
func (r *EvalResult) Key() string { return r.QuestionID }

// RetrieverService is EvalResult.Retriever for a model that retrieves its
// own contexts (a RAG service behind rag-endpoint).
const RetrieverService = "service"

// EvalResult.IndexState of the results of a question whose service is
// tracked for freshness (docs/methods.md, Freshness): IndexNotIndexed for a
// result asked before the service had indexed the question's document
// (kept out of the scores), IndexIndexed for one whose passages hold a
// ground-truth chunk (or a miss once another ask of the question held
// one: the document is indexed, the miss is the retriever's), IndexGaveUp for the last miss of a schedule that ran
// out.
const (
	IndexNotIndexed = "not_indexed"
	IndexIndexed    = "indexed"
	IndexGaveUp     = "gave_up"
)

// Metric families, one per paper (docs/architecture.md, ClickHouse schema).
const (
	FamilyRARE  = "rare"
	FamilySURE  = "sure"
	FamilyGRADE = "grade"
	FamilyPRGB  = "prgb"
)

// Outcome is one paired, per-metric verdict (topic rs.outcomes).
type Outcome struct {
	Meta
	QuestionRef
	OutcomeID   string    `json:"outcome_id"`
	Family      string    `json:"family"`
	Metric      string    `json:"metric"`
	ModelID     string    `json:"model_id"`
	VariantID   string    `json:"variant_id"`
	Axis        string    `json:"axis"`
	Kind        string    `json:"kind"`
	Known       bool      `json:"known"`
	Golden      bool      `json:"golden"`
	Value       float64   `json:"value"`
	EvaluatedAt time.Time `json:"evaluated_at"`
}

// Key implements Event.
func (o *Outcome) Key() string { return o.QuestionID }

// Alert is a drift alert state change (topic rs.alerts).
type Alert struct {
	Meta
	AlertID    string    `json:"alert_id"`
	Rule       string    `json:"rule"`
	Series     string    `json:"series"`
	State      string    `json:"state"`
	Baseline   float64   `json:"baseline"`
	Recent     float64   `json:"recent"`
	PValue     float64   `json:"p_value"`
	FiredAt    time.Time `json:"fired_at"`
	ResolvedAt time.Time `json:"resolved_at"`
	// Labels are the dimensions of Series (model_id, family, metric, axis,
	// kind, domain), for receivers that route on labels (Alertmanager).
	Labels map[string]string `json:"labels,omitempty"`
	// Summary says, in a sentence or two, what changed and what changed
	// around it (documents of a new period, a new model); carried to the
	// receivers, and stored in alert_summaries rather than alerts.
	Summary string `json:"summary,omitempty"`
	// Repeat marks a firing alert sent again, unchanged, for receivers that
	// expire an alert nobody refreshes (Alertmanager); the others skip it.
	Repeat bool `json:"repeat,omitempty"`
}

// Key implements Event.
func (a *Alert) Key() string { return a.Series }
