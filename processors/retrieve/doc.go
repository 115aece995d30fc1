// Package retrieve runs the "retrieve" stage, rs.chunks + rs.variants →
// rs.variants: the retrievers of the retrieval axis (RARE §3.3.4; GRADE
// §3.3–4) and the producer of its variants (docs/methods.md, Retrievers and
// the retrieval axis).
//
// The stage holds the corpus of active chunks (each document's current
// version) in a BM25 index (Index), updated in place as chunks arrive and
// versions replace or delete documents, kept in a changelog and rebuilt from
// it at start without tokenising again. With an embedder, an embedding
// retriever (Dense) stores each chunk's normalized vector in ClickHouse
// once and ranks there. For each question's original variant it writes one
// variant per retriever, slot retrieval/<retriever>_top<k>, whose contexts
// are the retrieved chunks and whose answer_available says whether they
// hold an accepted answer.
//
// The package must not judge answers or score them: pairing does
// (pair.RARE's retrieval robustness, pair.GRADE).
package retrieve
