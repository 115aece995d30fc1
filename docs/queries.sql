-- Example queries over robustream's ClickHouse views (schemas/sql 020, 030,
-- 035, 050). Copy one, change its window, run it with
--   robustream sql [--data-dir D | --clickhouse URL] "QUERY"
-- or any ClickHouse client. Not run by migrate. Every query works on
-- ClickHouse 18.16 and on chDB, and sinks/clickhouse/views_test.go runs
-- each one (by its name line) and checks its figures.
--
-- Windows. ClickHouse 18.16 has no parameterized views, so a window is a
-- WHERE on the row views, which carry two times:
--   evaluated_at  when the model was evaluated (the latest result of the
--                 (model, question) set)
--   published_at  when the facts the question rests on were published
-- The all-time views (rare_scores, sure_scores, grade_matrix, prgb_scores,
-- ...) are these queries without the WHERE. Times are DateTime in UTC:
-- write bounds as toDateTime('…', 'UTC').
--
-- Across questions the default is the mean of per-question means (each
-- question weighs the same), the pooled mean over outcome rows is named
-- *_pooled. The rolling tables (robustness_5m, _1h, _1d) only have pooled
-- sums: aggregate them with sum(value_sum) / sum(n). RARE's rows there are
-- selected by family, metric f and RARE's axes, as rare_question_scores
-- selects them.

-- name: rare_by_evaluation
-- RARE's four scores per model for the questions evaluated in a window.
SELECT
    model_id,
    avg(overall) AS overall,
    avgIf(query_robustness, query_n > 0) AS query_robustness,
    avgIf(document_robustness, document_n > 0) AS document_robustness,
    avgIf(retrieval_robustness, retrieval_n > 0) AS retrieval_robustness,
    sum(n) AS outcomes,
    count() AS questions,
    sum(f_sum) / sum(n) AS overall_pooled,
    sum(query_sum) / sum(query_n) AS query_robustness_pooled,
    sum(document_sum) / sum(document_n) AS document_robustness_pooled,
    sum(retrieval_sum) / sum(retrieval_n) AS retrieval_robustness_pooled
FROM robustream.rare_question_scores
WHERE evaluated_at >= toDateTime('2024-04-01 00:00:00', 'UTC')
  AND evaluated_at < toDateTime('2024-04-02 00:00:00', 'UTC')
GROUP BY model_id
ORDER BY model_id;

-- name: rare_by_period
-- The same for the questions about facts published in a period (here
-- March 2024), per month of publication.
SELECT
    model_id,
    toStartOfMonth(published_at) AS period,
    avg(overall) AS overall,
    avgIf(query_robustness, query_n > 0) AS query_robustness,
    avgIf(document_robustness, document_n > 0) AS document_robustness,
    count() AS questions,
    sum(f_sum) / sum(n) AS overall_pooled
FROM robustream.rare_question_scores
WHERE published_at >= toDateTime('2024-03-01 00:00:00', 'UTC')
  AND published_at < toDateTime('2024-04-01 00:00:00', 'UTC')
GROUP BY model_id, period
ORDER BY model_id, period;

-- name: rare_hourly_rollup
-- Pooled mean f per model and hour from the hourly rollup (cheap at any
-- data size; per-question means need rare_question_scores). Use
-- robustness_5m or robustness_1d for other bucket sizes.
SELECT
    model_id,
    bucket,
    sum(n) AS outcomes,
    sum(value_sum) / sum(n) AS overall_pooled,
    sumIf(value_sum, axis = 'query') / sumIf(n, axis = 'query') AS query_robustness_pooled
FROM robustream.robustness_1h
WHERE family = 'rare' AND metric = 'f' AND axis IN ('original', 'query', 'document', 'retrieval', 'cross')
  AND bucket >= toDateTime('2024-04-01 00:00:00', 'UTC')
  AND bucket < toDateTime('2024-04-02 00:00:00', 'UTC')
GROUP BY model_id, bucket
ORDER BY model_id, bucket;

-- name: rare_daily_kinds
-- Pooled mean f per model, day and perturbation kind (robustness_1d).
SELECT model_id, bucket, axis, kind, sum(n) AS outcomes, sum(value_sum) / sum(n) AS mean_f
FROM robustream.robustness_1d
WHERE family = 'rare' AND metric = 'f' AND axis IN ('original', 'query', 'document', 'retrieval', 'cross')
GROUP BY model_id, bucket, axis, kind
ORDER BY model_id, bucket, axis, kind;

-- name: sure_by_evaluation
-- SURE's RR, WR, LR and accuracies per kind and Known × Golden over a
-- window. Drop known, golden from both lists for the kind totals.
SELECT
    model_id, axis, kind, known, golden,
    count() AS n,
    countIf(c = 0) / count() AS rr,
    countIf(c = -1) / count() AS wr,
    countIf(c = 1) / count() AS lr,
    avg(y_original) AS acc_original,
    avg(y_original) + countIf(c = -1) / count() - countIf(c = 1) / count() AS acc_perturbed
FROM robustream.sure_instances
WHERE evaluated_at >= toDateTime('2024-04-01 00:00:00', 'UTC')
  AND evaluated_at < toDateTime('2024-04-02 00:00:00', 'UTC')
GROUP BY model_id, axis, kind, known, golden
ORDER BY model_id, axis, kind, known, golden;

-- name: grade_by_evaluation
-- GRADE's hops × D_r quartile error rates for the questions evaluated in
-- a window. The quartiles are ranked over the window's questions, so the
-- WHERE goes in the innermost query (the only place to edit). dr_agg min
-- is GRADE's D_r, mean and power_mean are its Table 3 alternatives.
SELECT
    sim_func, dr_agg, model_id, hops, dr_quartile,
    count() AS questions,
    sum(row_n) AS n,
    1 - avg(row_correct / row_n) AS error_rate,
    1 - sum(row_correct) / sum(row_n) AS error_rate_pooled,
    min(row_dr) AS dr_min,
    max(row_dr) AS dr_max
FROM
(
    SELECT
        sim_func, dr_agg,
        tupleElement(row, 1) AS row_dr,
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
            SELECT sim_func, dr_agg, arraySort(groupArray((difficulty, question_id, model_id, hops, n, correct))) AS sorted
            FROM robustream.grade_questions
            WHERE evaluated_at >= toDateTime('2024-04-01 00:00:00', 'UTC')
              AND evaluated_at < toDateTime('2024-04-02 00:00:00', 'UTC')
            GROUP BY sim_func, dr_agg
        )
    )
    ARRAY JOIN sorted AS row, ranks AS rank
)
GROUP BY sim_func, dr_agg, model_id, hops, dr_quartile
ORDER BY sim_func, dr_agg, model_id, hops, dr_quartile;

-- name: grade_mean_power_mean
-- The matrix of every D_r aggregation side by side for one similarity
-- function, all time.
SELECT dr_agg, model_id, hops, dr_quartile, questions, error_rate, dr_min, dr_max
FROM robustream.grade_matrix_by_dr_agg
WHERE sim_func = 'lexical_cosine'
ORDER BY dr_agg, model_id, hops, dr_quartile;

-- name: prgb_by_period
-- PRGB per model and task class for the facts published in a period.
SELECT
    model_id, task_class,
    count() AS n,
    avg(score) AS mean_score,
    countIf(score = 1) / count() AS all_correct_share,
    countIf(score > 0 AND score < 1) / count() AS partial_share,
    countIf(score = 0) / count() AS all_wrong_share
FROM robustream.prgb_points
WHERE published_at >= toDateTime('2024-03-01 00:00:00', 'UTC')
  AND published_at < toDateTime('2024-04-01 00:00:00', 'UTC')
GROUP BY model_id, task_class
ORDER BY model_id, task_class;
