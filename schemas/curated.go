package schemas

// GeneratorGoldens is Question.Generator of a team's own curated question,
// read by the goldens:PATH source rather than generated: the curated
// questions are those with generator = 'goldens' in the questions table.
const GeneratorGoldens = "goldens"

// MetaChunking is the DocumentVersion metadata key that tells the chunk
// stage how to cut the document; ChunkWhole makes the whole text one chunk
// (the goldens source's contexts, whose chunk ids its questions name:
// ID(doc_id, text), as for any chunk).
const (
	MetaChunking = "chunking"
	ChunkWhole   = "whole"
)

// Curated reports whether q is a team's own question (GeneratorGoldens).
func (q *Question) Curated() bool { return q.Generator == GeneratorGoldens }
