-- Retrieved passages and retrieval metrics of eval results
-- (docs/methods.md, Retrieval metrics), and the index state of freshness
-- (docs/methods.md, Freshness). 010 creates new data directories with
-- these columns; this file adds them to older ones in place. ClickHouse
-- 18.16 has no ADD COLUMN IF NOT EXISTS, so the migration runner reads
-- each statement of this shape as "add the column where it is missing"
-- (schemas.AddColumn): it looks the column up in system.columns and runs
-- the ALTER without IF NOT EXISTS only when it is not there, on every
-- engine version.
ALTER TABLE robustream.eval_results ADD COLUMN IF NOT EXISTS retriever String;
ALTER TABLE robustream.eval_results ADD COLUMN IF NOT EXISTS retrieved Array(String);
ALTER TABLE robustream.eval_results ADD COLUMN IF NOT EXISTS retrieved_sources Array(String);
ALTER TABLE robustream.eval_results ADD COLUMN IF NOT EXISTS retrieved_scores Array(Float64);
ALTER TABLE robustream.eval_results ADD COLUMN IF NOT EXISTS retrieval_hit UInt8;
ALTER TABLE robustream.eval_results ADD COLUMN IF NOT EXISTS retrieval_recall Float64;
ALTER TABLE robustream.eval_results ADD COLUMN IF NOT EXISTS retrieval_precision Float64;
ALTER TABLE robustream.eval_results ADD COLUMN IF NOT EXISTS retrieval_rr Float64;
ALTER TABLE robustream.eval_results ADD COLUMN IF NOT EXISTS index_state String;
