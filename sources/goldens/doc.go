// Package goldens is the goldens:PATH source: a team's own curated
// questions, each with its answer and the contexts that hold it, taken into
// the same perturbations, fan-out and metrics as the generated ones and
// marked as curated (Question.Generator = schemas.GeneratorGoldens).
//
// The file is JSONL (one record a line) or a JSON array of records:
//
//	{"id": "faq-17", "question": "…", "answer": "…", "aliases": ["…"],
//	 "contexts": ["…", "…"], "published_at": "2026-04-28", "domain": "support",
//	 "pattern": "single", "hops": 1}
//
// question, answer and contexts are required. Each distinct context becomes
// a document of its own (doc id ID("goldens", text), so a context shared by
// several questions is one document) that the chunk stage keeps as one
// chunk (schemas.ChunkWhole), whose id ID(doc_id, text) the question names
// in gt_chunk_ids; the question goes to rs.questions directly, with id
// ID("goldens", id) (ID("goldens", question) without an id), after its
// documents. Ids depend on the content alone, not on where the file lies.
//
// A record that is not valid (malformed JSON, a field the format does not
// have, a missing question, answer or context, a bad date, pattern or hops,
// an id used before) never stops the file: it is logged with its line
// number and dead-lettered to rs.dlq with the record as the value and its
// line as the offset.
//
// It must not import processors or sinks: the question stage's D_r comes in
// through Config.Score.
package goldens
