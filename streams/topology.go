package streams

import "slices"

// The topology: every topic of the pipeline, declared once. Topic creation,
// the ClickHouse sinks' topic → table mapping, trimming, progress and
// readiness all derive from this table; no other file spells a topic name.
// Keys are chosen so that everything a keyed stage must see together lands
// in one partition (docs/architecture.md, Topics and events).
const (
	TopicDocuments    = "rs.documents"
	TopicChunks       = "rs.chunks"
	TopicTriplets     = "rs.triplets"
	TopicQuestions    = "rs.questions"
	TopicVariants     = "rs.variants"
	TopicEvalRequests = "rs.eval.requests"
	TopicEvalResults  = "rs.eval.results"
	TopicOutcomes     = "rs.outcomes"
	TopicAlerts       = "rs.alerts"
	TopicDLQ          = "rs.dlq"

	// changelogPrefix names the compacted topics that back keyed state:
	// rs.state.<stage>.
	changelogPrefix = "rs.state."
)

// TopicSpec describes one topic of the pipeline.
type TopicSpec struct {
	Name string
	// Event is the schemas type its records carry.
	Event string
	// Key is what its records are keyed by.
	Key string
	// Table is the ClickHouse raw table its records are written to, or ""
	// if no sink reads it.
	Table string
}

// Topology lists every topic in pipeline order.
var Topology = []TopicSpec{
	{TopicDocuments, "DocumentVersion", "doc_id", "documents"},
	{TopicChunks, "Chunk", "doc_id", "chunks"},
	{TopicTriplets, "Triplet", "doc_id", "triplets"},
	{TopicQuestions, "Question", "question_id", "questions"},
	{TopicVariants, "Variant", "question_id", "variants"},
	{TopicEvalRequests, "EvalRequest", "question_id", ""},
	{TopicEvalResults, "EvalResult", "question_id", "eval_results"},
	{TopicOutcomes, "Outcome", "question_id", "outcomes"},
	{TopicAlerts, "Alert", "series", "alerts"},
	{TopicDLQ, "the original record, with rs-dlq-* headers", "the original key", ""},
}

// TopicNames lists every topic of the topology.
func TopicNames() []string {
	out := make([]string, len(Topology))
	for i, t := range Topology {
		out[i] = t.Name
	}
	return out
}

// TableOf returns the ClickHouse table topic is written to, or "".
func TableOf(topic string) string {
	i := slices.IndexFunc(Topology, func(t TopicSpec) bool { return t.Name == topic })
	if i < 0 {
		return ""
	}
	return Topology[i].Table
}
