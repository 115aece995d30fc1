-- The embedding retrievers' chunk vectors (docs/methods.md, Retrievers and
-- the retrieval axis): one row per (embedder, chunk), written once when the retrieve stage first
-- indexes the chunk and never again, across restarts too. Vectors are
-- normalized, so a dot product (arraySum over arrayMap, on every supported
-- engine) is the cosine. Which chunks are active (current document
-- versions) is the retrieve stage's index; a retired chunk's vector stays
-- here, unused, and is used again if a later version has the same chunk.
CREATE TABLE IF NOT EXISTS robustream.chunk_vectors
(
    embedder    String,
    chunk_id    String,
    doc_id      String,
    doc_version UInt32,
    vector      Array(Float32),
    embedded_at DateTime
)
ENGINE = ReplacingMergeTree
ORDER BY (embedder, chunk_id);
