-- Generated from processors/metrics (go generate ./processors/metrics); do not edit.
-- Example queries over robustream's ClickHouse views (schemas/sql 020, 030,
-- 050). Copy one, change its window, run it with
--   robustream sql [--data-dir D | --clickhouse URL] "QUERY"
-- or any ClickHouse client. Not run by migrate. Every query works on
-- ClickHouse 18.16 and on chDB, and sinks/clickhouse/views_test.go runs each
-- one (by its name line) and checks its figures.
--
-- Windows. ClickHouse 18.16 has no parameterized views, so a window is a
-- WHERE on the row views, which carry two times:
--   evaluated_at  when the model was evaluated (the latest result of the
--                 (model, question) set)
--   published_at  when the facts the question rests on were published
-- The all-time views (rare_scores, sure_scores, grade_matrix, prgb_scores,
-- ...) are these queries without the WHERE: both are written from one
-- definition per family in processors/metrics. Times are DateTime in UTC.
--
-- Across questions the default is the mean of per-question means (each
-- question weighs the same); the pooled mean over outcome rows is named
-- *_pooled. The rolling tables (robustness_5m, _1h, _1d) only have pooled
-- sums: aggregate them with sum(value_sum) / sum(n). RARE's rows there are
-- selected by family, metric f and RARE's axes, as rare_question_scores
-- selects them.

-- name: rare_by_evaluation
-- RARE's four scores per model for the questions evaluated in a window.
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
    WHERE evaluated_at >= toDateTime('2024-04-01 00:00:00', 'UTC')
      AND evaluated_at < toDateTime('2024-04-02 00:00:00', 'UTC')
    GROUP BY model_id
)
ORDER BY model_id;

-- name: rare_by_period
-- The same for the questions about facts published in a period (here March 2024).
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
    WHERE published_at >= toDateTime('2024-03-01 00:00:00', 'UTC')
      AND published_at < toDateTime('2024-04-01 00:00:00', 'UTC')
    GROUP BY model_id
)
ORDER BY model_id;

-- name: rare_retrieval_by_evaluation
-- RARE's retrieval robustness per model and retriever over a window.
SELECT
    model_id,
    retriever,
    all_n AS n,
    q_cnt AS questions,
    qsum / q_cnt AS retrieval_robustness,
    all_sum / all_n AS retrieval_robustness_pooled
FROM
(
    SELECT
        model_id,
        retriever,
        count() AS q_cnt,
        sum(retrieval_robustness) AS qsum,
        sum(n) AS all_n,
        sum(f_sum) AS all_sum
    FROM robustream.rare_retrieval_questions
    WHERE evaluated_at >= toDateTime('2024-04-01 00:00:00', 'UTC')
      AND evaluated_at < toDateTime('2024-04-02 00:00:00', 'UTC')
    GROUP BY model_id, retriever
)
ORDER BY model_id, retriever;

-- name: rare_hourly_rollup
-- Pooled mean f per model and hour from the hourly rollup (cheap at any data
-- size; per-question means need rare_question_scores). Use robustness_5m or
-- robustness_1d for other bucket sizes.
SELECT model_id, bucket, sum(n) AS cnt, sum(value_sum) / sum(n) AS score
FROM robustream.robustness_1h
WHERE bucket >= toDateTime('2024-04-01 00:00:00', 'UTC') AND bucket < toDateTime('2024-04-02 00:00:00', 'UTC')
  AND family = 'rare' AND metric = 'f' AND axis IN ('original', 'query', 'document', 'retrieval', 'cross')
GROUP BY model_id, bucket
HAVING cnt > 0
ORDER BY model_id, bucket;

-- name: rare_daily_kinds
-- Pooled mean f per model, day and perturbation kind (robustness_1d).
SELECT model_id, bucket, axis, kind, sum(n) AS cnt, sum(value_sum) / sum(n) AS score
FROM robustream.robustness_1d
WHERE family = 'rare' AND metric = 'f' AND axis IN ('original', 'query', 'document', 'retrieval', 'cross')
GROUP BY model_id, bucket, axis, kind
HAVING cnt > 0
ORDER BY model_id, bucket, axis, kind;

-- name: sure_by_evaluation
-- SURE's RR, WR, LR and accuracies per kind and Known × Golden over a window
-- (sure_kind_scores, sure_split_scores and sure_model_scores are the same
-- query with fewer keys).
SELECT
    model_id,
    axis,
    kind,
    known,
    golden,
    cnt AS n,
    rr_cnt / cnt AS rr,
    wr_cnt / cnt AS wr,
    lr_cnt / cnt AS lr,
    y_orig_sum / cnt AS acc_original,
    y_orig_sum / cnt + wr_cnt / cnt - lr_cnt / cnt AS acc_perturbed
FROM
(
    SELECT
        model_id,
        axis,
        kind,
        known,
        golden,
        count() AS cnt,
        countIf(c = 0) AS rr_cnt,
        countIf(c = -1) AS wr_cnt,
        countIf(c = 1) AS lr_cnt,
        sum(y_original) AS y_orig_sum
    FROM robustream.sure_instances
    WHERE evaluated_at >= toDateTime('2024-04-01 00:00:00', 'UTC')
      AND evaluated_at < toDateTime('2024-04-02 00:00:00', 'UTC')
    GROUP BY model_id, axis, kind, known, golden
)
ORDER BY model_id, axis, kind, known, golden;

-- name: grade_by_evaluation
-- GRADE's hops × D_r quartile error rates for the questions evaluated in a
-- window, for every D_r aggregation (min is GRADE's D_r, mean and power_mean its
-- Table 3 alternatives). The quartiles are ranked over the window's questions,
-- so the window is a WHERE in the innermost query.
SELECT
    model_id,
    hops,
    dr_quartile,
    sum(row_n) AS n,
    1 - avg(row_correct / row_n) AS error_rate,
    count() AS questions,
    sim_func,
    dr_agg,
    1 - sum(row_correct) / sum(row_n) AS error_rate_pooled,
    min(row_dr) AS dr_min,
    max(row_dr) AS dr_max
FROM
(
    SELECT
        sim_func, dr_agg,
        tupleElement(row, 1) AS row_dr,
        tupleElement(row, 2) AS row_question,
        tupleElement(row, 3) AS model_id,
        tupleElement(row, 4) AS hops,
        tupleElement(row, 5) AS row_n,
        tupleElement(row, 6) AS row_correct,
        intDiv((rank - 1) * 4, total) + 1 AS dr_quartile
    FROM
    (
        SELECT
            sim_func, dr_agg, sorted,
            arrayCumSum(arrayMap(i -> if(i = 1 OR tupleElement(sorted[i], 2) != tupleElement(sorted[i - 1], 2), 1, 0), arrayEnumerate(sorted))) AS ranks,
            ranks[length(ranks)] AS total
        FROM
        (
            SELECT
                sim_func, dr_agg,
                arraySort(groupArray((difficulty, question_id, model_id, hops, n, correct))) AS sorted
            FROM robustream.grade_questions
            WHERE evaluated_at >= toDateTime('2024-04-01 00:00:00', 'UTC')
              AND evaluated_at < toDateTime('2024-04-02 00:00:00', 'UTC')
            GROUP BY sim_func, dr_agg
        )
    )
    ARRAY JOIN sorted AS row, ranks AS rank
)
GROUP BY sim_func, dr_agg, model_id, hops, dr_quartile
ORDER BY model_id, sim_func, dr_agg, hops, dr_quartile;

-- name: grade_quartiles_by_evaluation
-- The D_r quartiles of the same window: questions and D_r range per quartile.
SELECT
    sim_func, dr_agg, dr_quartile,
    uniqExact(row_question) AS questions,
    min(row_dr) AS dr_min,
    max(row_dr) AS dr_max
FROM
(
    SELECT
        sim_func, dr_agg,
        tupleElement(row, 1) AS row_dr,
        tupleElement(row, 2) AS row_question,
        tupleElement(row, 3) AS model_id,
        tupleElement(row, 4) AS hops,
        tupleElement(row, 5) AS row_n,
        tupleElement(row, 6) AS row_correct,
        intDiv((rank - 1) * 4, total) + 1 AS dr_quartile
    FROM
    (
        SELECT
            sim_func, dr_agg, sorted,
            arrayCumSum(arrayMap(i -> if(i = 1 OR tupleElement(sorted[i], 2) != tupleElement(sorted[i - 1], 2), 1, 0), arrayEnumerate(sorted))) AS ranks,
            ranks[length(ranks)] AS total
        FROM
        (
            SELECT
                sim_func, dr_agg,
                arraySort(groupArray((difficulty, question_id, model_id, hops, n, correct))) AS sorted
            FROM robustream.grade_questions
            WHERE evaluated_at >= toDateTime('2024-04-01 00:00:00', 'UTC')
              AND evaluated_at < toDateTime('2024-04-02 00:00:00', 'UTC')
            GROUP BY sim_func, dr_agg
        )
    )
    ARRAY JOIN sorted AS row, ranks AS rank
)
GROUP BY sim_func, dr_agg, dr_quartile
ORDER BY sim_func, dr_agg, dr_quartile;

-- name: grade_mean_power_mean
-- The matrix of every D_r aggregation side by side for one similarity function, all time.
SELECT dr_agg, model_id, hops, dr_quartile, questions, error_rate, dr_min, dr_max
FROM robustream.grade_matrix_by_dr_agg
WHERE sim_func = 'lexical_cosine'
ORDER BY dr_agg, model_id, hops, dr_quartile;

-- name: prgb_by_period
-- PRGB per model and task class for the facts published in a period.
SELECT
    model_id,
    task_class,
    points AS n,
    score_sum / points AS score,
    all_correct / points AS all_correct_share,
    partial / points AS partial_share,
    all_wrong / points AS all_wrong_share
FROM
(
    SELECT
        model_id,
        task_class,
        count() AS points,
        sum(score) AS score_sum,
        countIf(score = 1) AS all_correct,
        countIf(score > 0 AND score < 1) AS partial,
        countIf(score = 0) AS all_wrong
    FROM robustream.prgb_points
    WHERE published_at >= toDateTime('2024-03-01 00:00:00', 'UTC')
      AND published_at < toDateTime('2024-04-01 00:00:00', 'UTC')
    GROUP BY model_id, task_class
)
ORDER BY model_id, task_class;
