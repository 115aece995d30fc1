-- Rolling robustness aggregates (docs/architecture.md, ClickHouse schema):
-- 5-minute, hourly and daily buckets of evaluated_at per (model, family,
-- metric, axis/kind, pattern, domain), kept by materialized views as each
-- outcome block is inserted.
--
-- SummingMergeTree with (n, value_sum) rather than an average: sums merge
-- exactly, so any coarser window or any subset of the key is
-- sum(value_sum) / sum(n). Readers must aggregate with sum() (rows for one
-- key are only collapsed at merge time). Invariant the tests check:
-- SELECT sum(n) FROM robustness_1h = SELECT count() FROM outcomes.

CREATE TABLE IF NOT EXISTS robustream.robustness_5m
(
    bucket    DateTime,
    model_id  String,
    family    Enum8('rare' = 1, 'sure' = 2, 'grade' = 3, 'prgb' = 4),
    metric    String,
    axis      String,
    kind      String,
    pattern   String,
    domain    String,
    n         UInt64,
    value_sum Float64
)
ENGINE = SummingMergeTree((n, value_sum))
PARTITION BY toYYYYMM(bucket)
ORDER BY (bucket, model_id, family, metric, axis, kind, pattern, domain);

CREATE TABLE IF NOT EXISTS robustream.robustness_1h
(
    bucket    DateTime,
    model_id  String,
    family    Enum8('rare' = 1, 'sure' = 2, 'grade' = 3, 'prgb' = 4),
    metric    String,
    axis      String,
    kind      String,
    pattern   String,
    domain    String,
    n         UInt64,
    value_sum Float64
)
ENGINE = SummingMergeTree((n, value_sum))
PARTITION BY toYYYYMM(bucket)
ORDER BY (bucket, model_id, family, metric, axis, kind, pattern, domain);

CREATE TABLE IF NOT EXISTS robustream.robustness_1d
(
    bucket    DateTime,
    model_id  String,
    family    Enum8('rare' = 1, 'sure' = 2, 'grade' = 3, 'prgb' = 4),
    metric    String,
    axis      String,
    kind      String,
    pattern   String,
    domain    String,
    n         UInt64,
    value_sum Float64
)
ENGINE = SummingMergeTree((n, value_sum))
PARTITION BY toYYYYMM(bucket)
ORDER BY (bucket, model_id, family, metric, axis, kind, pattern, domain);

CREATE MATERIALIZED VIEW IF NOT EXISTS robustream.robustness_5m_mv
TO robustream.robustness_5m
AS SELECT
    toStartOfFiveMinute(evaluated_at) AS bucket,
    model_id, family, metric, axis, kind, pattern, domain,
    count() AS n,
    sum(value) AS value_sum
FROM robustream.outcomes
GROUP BY bucket, model_id, family, metric, axis, kind, pattern, domain;

CREATE MATERIALIZED VIEW IF NOT EXISTS robustream.robustness_1h_mv
TO robustream.robustness_1h
AS SELECT
    toStartOfHour(evaluated_at) AS bucket,
    model_id, family, metric, axis, kind, pattern, domain,
    count() AS n,
    sum(value) AS value_sum
FROM robustream.outcomes
GROUP BY bucket, model_id, family, metric, axis, kind, pattern, domain;

CREATE MATERIALIZED VIEW IF NOT EXISTS robustream.robustness_1d_mv
TO robustream.robustness_1d
AS SELECT
    toStartOfDay(evaluated_at) AS bucket,
    model_id, family, metric, axis, kind, pattern, domain,
    count() AS n,
    sum(value) AS value_sum
FROM robustream.outcomes
GROUP BY bucket, model_id, family, metric, axis, kind, pattern, domain;
