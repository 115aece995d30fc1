-- Raw event tables, one per topic (docs/architecture.md, ClickHouse schema).
--
-- ReplacingMergeTree ordered by the event's deterministic id: a row written
-- twice (at-least-once delivery, a replayed topic) converges to one row at
-- merge time. The version column is produced_at, so the latest production of
-- an id wins whatever order the copies arrived in (alerts rely on that: a
-- resolved alert replaces its firing row).
--
-- No PARTITION BY on raw tables on purpose: replacing only happens within a
-- partition, and a partition key drawn from a timestamp that a re-emission
-- could change would keep duplicates apart for ever.
--
-- Booleans are UInt8 and times DateTime (UTC seconds): the DDL must run on
-- chDB 26.x and on clickhouse-server 18.16 alike (docs/architecture.md,
-- ClickHouse schema).

CREATE TABLE IF NOT EXISTS robustream.documents
(
    doc_id       String,
    version      UInt32,
    source       String,
    uri          String,
    title        String,
    domain       String,
    published_at DateTime,
    fetched_at   DateTime,
    content_hash String,
    mime         String,
    text         String,
    produced_at  DateTime
)
ENGINE = ReplacingMergeTree(produced_at)
ORDER BY (doc_id, version);

CREATE TABLE IF NOT EXISTS robustream.chunks
(
    chunk_id     String,
    doc_id       String,
    doc_version  UInt32,
    ordinal      UInt32,
    kind         String,
    tokens       UInt32,
    span_start   UInt32,
    span_end     UInt32,
    title        String,
    text         String,
    domain       String,
    published_at DateTime,
    produced_at  DateTime
)
ENGINE = ReplacingMergeTree(produced_at)
ORDER BY chunk_id;

CREATE TABLE IF NOT EXISTS robustream.triplets
(
    triplet_id      String,
    head            String,
    relation        String,
    tail            String,
    chunk_id        String,
    doc_id          String,
    source_sentence String,
    extractor       String,
    domain          String,
    published_at    DateTime,
    produced_at     DateTime
)
ENGINE = ReplacingMergeTree(produced_at)
ORDER BY triplet_id;

-- qa_score_names/qa_score_values hold the QA-check scores (RARE §4.4: every
-- score is recorded) as parallel arrays sorted by name: Map is not available
-- on 18.16.
CREATE TABLE IF NOT EXISTS robustream.questions
(
    question_id     String,
    question        String,
    answer          String,
    aliases         Array(String),
    pattern         String,
    hops            UInt8,
    triplet_ids     Array(String),
    gt_chunk_ids    Array(String),
    pivot           String,
    qa_score_names  Array(String),
    qa_score_values Array(Float64),
    d_r             Float64,
    sim_func        String,
    generator       String,
    doc_id          String,
    domain          String,
    published_at    DateTime,
    produced_at     DateTime
)
ENGINE = ReplacingMergeTree(produced_at)
ORDER BY question_id;

CREATE TABLE IF NOT EXISTS robustream.variants
(
    variant_id       String,
    question_id      String,
    axis             String,
    kind             String,
    query            String,
    contexts         Array(String),
    expected_answer  String,
    aliases          Array(String),
    answer_available UInt8,
    pattern          String,
    hops             UInt8,
    domain           String,
    published_at     DateTime,
    produced_at      DateTime
)
ENGINE = ReplacingMergeTree(produced_at)
ORDER BY variant_id;

-- Keyed by (request_id, variant_id): identical prompts are sent once
-- (docs/methods.md, Fan-out and prompts), so one request may answer several
-- variants.
CREATE TABLE IF NOT EXISTS robustream.eval_results
(
    request_id       String,
    variant_id       String,
    question_id      String,
    model_id         String,
    closed_book      UInt8,
    axis             String,
    kind             String,
    answer_available UInt8,
    answer           String,
    refused          UInt8,
    correct          UInt8,
    judge_method     String,
    similarity       Float64,
    latency_ms       Float64,
    tokens_in        UInt32,
    tokens_out       UInt32,
    error            String,
    pattern          String,
    hops             UInt8,
    domain           String,
    published_at     DateTime,
    evaluated_at     DateTime,
    produced_at      DateTime,
    retriever        String,
    retrieved        Array(String),
    retrieved_sources Array(String),
    retrieved_scores Array(Float64),
    retrieval_hit    UInt8,
    retrieval_recall Float64,
    retrieval_precision Float64,
    retrieval_rr     Float64,
    index_state      String
)
ENGINE = ReplacingMergeTree(produced_at)
ORDER BY (request_id, variant_id);

-- The only table that feeds materialized views. d_r travels with every
-- outcome so that the GRADE matrix (hops × D_r quartile) needs no join.
CREATE TABLE IF NOT EXISTS robustream.outcomes
(
    outcome_id   String,
    family       Enum8('rare' = 1, 'sure' = 2, 'grade' = 3, 'prgb' = 4),
    metric       String,
    model_id     String,
    question_id  String,
    variant_id   String,
    axis         String,
    kind         String,
    pattern      String,
    hops         UInt8,
    d_r          Float64,
    domain       String,
    known        UInt8,
    golden       UInt8,
    value        Float64,
    published_at DateTime,
    evaluated_at DateTime,
    produced_at  DateTime
)
ENGINE = ReplacingMergeTree(produced_at)
ORDER BY outcome_id;

-- One row per alert state change; firing and resolved share alert_id, and
-- the later produced_at (the resolution) replaces the firing row.
CREATE TABLE IF NOT EXISTS robustream.alerts
(
    alert_id    String,
    rule        String,
    series      String,
    state       String,
    baseline    Float64,
    recent      Float64,
    p_value     Float64,
    fired_at    DateTime,
    resolved_at DateTime,
    produced_at DateTime
)
ENGINE = ReplacingMergeTree(produced_at)
ORDER BY alert_id;
