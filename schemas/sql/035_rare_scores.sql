-- RARE's scores over all time (RARE §3.3.1–3.3.4, eqs. 1–4), per model.
-- Only metric f counts: RARE's family also holds the retrieval hit
-- outcomes of models that retrieve their own contexts. Dropped in 030 with
-- the other score views and created again here at every migration.
--
-- Two aggregations across questions, each named:
--   overall, query_robustness, document_robustness, retrieval_robustness:
--     the mean of per-question means (the default: every question weighs
--     the same, however many variants it has). A question counts for an
--     axis only if it has an outcome on that axis.
--   *_pooled: the mean over all outcome rows (a question with more
--     variants weighs more).
-- n is the number of outcomes, questions the number of (model, question)
-- pairs. NaN where a model has no outcome on an axis. For a time window,
-- see docs/queries.sql (the same aggregation over rare_question_scores
-- with a WHERE).
CREATE VIEW IF NOT EXISTS robustream.rare_scores AS
SELECT
    model_id,
    overall_qsum / q_cnt AS overall,
    if(query_q = 0, nan, query_qsum / query_q) AS query_robustness,
    if(document_q = 0, nan, document_qsum / document_q) AS document_robustness,
    if(retrieval_q = 0, nan, retrieval_qsum / retrieval_q) AS retrieval_robustness,
    all_n AS n,
    q_cnt AS questions,
    all_sum / all_n AS overall_pooled,
    if(query_cnt = 0, nan, query_fsum / query_cnt) AS query_robustness_pooled,
    if(document_cnt = 0, nan, document_fsum / document_cnt) AS document_robustness_pooled,
    if(retrieval_cnt = 0, nan, retrieval_fsum / retrieval_cnt) AS retrieval_robustness_pooled
FROM
(
    SELECT
        model_id,
        count() AS q_cnt,
        sum(overall) AS overall_qsum,
        countIf(query_n > 0) AS query_q,
        sumIf(query_robustness, query_n > 0) AS query_qsum,
        countIf(document_n > 0) AS document_q,
        sumIf(document_robustness, document_n > 0) AS document_qsum,
        countIf(retrieval_n > 0) AS retrieval_q,
        sumIf(retrieval_robustness, retrieval_n > 0) AS retrieval_qsum,
        sum(n) AS all_n,
        sum(f_sum) AS all_sum,
        sum(query_n) AS query_cnt,
        sum(query_sum) AS query_fsum,
        sum(document_n) AS document_cnt,
        sum(document_sum) AS document_fsum,
        sum(retrieval_n) AS retrieval_cnt,
        sum(retrieval_sum) AS retrieval_fsum
    FROM robustream.rare_question_scores
    GROUP BY model_id
);

-- Retrieval hit rate per model that retrieves its own contexts (a RAG
-- service): the share of its answers whose passages include a
-- ground-truth chunk. NaN never: a model without such outcomes has no row.
CREATE VIEW IF NOT EXISTS robustream.retrieval_hit_rates AS
SELECT
    model_id,
    hit_sum / hit_n AS hit_rate,
    hit_n AS n
FROM
(
    SELECT model_id, sum(n) AS hit_n, sum(value_sum) AS hit_sum
    FROM robustream.robustness_1h
    WHERE family = 'rare' AND metric = 'retrieval_hit'
    GROUP BY model_id
);
