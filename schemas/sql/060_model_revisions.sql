-- Each revision of each model's entry in models.yaml, and when an engine
-- first used it: written at start and at every reload of the file, read by
-- the drift evaluator to say that a model changed around a drop. A
-- revision is a hash of the entry as decoded (endpoint, model name,
-- parameters, limits), never of a secret's value.
CREATE TABLE IF NOT EXISTS robustream.model_revisions
(
    model_id String,
    revision String,
    seen_at  DateTime
)
ENGINE = MergeTree
ORDER BY (model_id, seen_at);
