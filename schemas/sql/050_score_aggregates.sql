-- SURE, GRADE and PRGB scores over all time, from the row views of
-- 030_score_views.sql (dropped there and created again here at every
-- migration). For a time window, docs/queries.sql holds the same
-- aggregations with a WHERE on evaluated_at or published_at.

-- SURE (§3.4) per perturbation kind and Known/Unknown × Golden/Noise:
-- RR, WR and LR are the shares of instances with C = 0, −1 and 1 (they add
-- up to 1), pooled over instances as SURE reports them. acc_original is
-- the mean Y(original) over the same instances and acc_perturbed =
-- acc_original + WR − LR, which is the mean Y(perturbed).
CREATE VIEW IF NOT EXISTS robustream.sure_scores AS
SELECT
    model_id, axis, kind, known, golden,
    cnt AS n,
    rr_cnt / cnt AS rr,
    wr_cnt / cnt AS wr,
    lr_cnt / cnt AS lr,
    y_orig_sum / cnt AS acc_original,
    y_orig_sum / cnt + wr_cnt / cnt - lr_cnt / cnt AS acc_perturbed
FROM
(
    SELECT
        model_id, axis, kind, known, golden,
        count() AS cnt,
        countIf(c = 0) AS rr_cnt,
        countIf(c = -1) AS wr_cnt,
        countIf(c = 1) AS lr_cnt,
        sum(y_original) AS y_orig_sum
    FROM robustream.sure_instances
    GROUP BY model_id, axis, kind, known, golden
);

-- SURE per perturbation kind over every Known/Golden cell.
CREATE VIEW IF NOT EXISTS robustream.sure_kind_scores AS
SELECT
    model_id, axis, kind,
    cnt AS n,
    rr_cnt / cnt AS rr,
    wr_cnt / cnt AS wr,
    lr_cnt / cnt AS lr,
    y_orig_sum / cnt AS acc_original,
    y_orig_sum / cnt + wr_cnt / cnt - lr_cnt / cnt AS acc_perturbed
FROM
(
    SELECT
        model_id, axis, kind,
        count() AS cnt,
        countIf(c = 0) AS rr_cnt,
        countIf(c = -1) AS wr_cnt,
        countIf(c = 1) AS lr_cnt,
        sum(y_original) AS y_orig_sum
    FROM robustream.sure_instances
    GROUP BY model_id, axis, kind
);

-- GRADE's matrix (§3.3, eq. 1, §4) for every similarity function and D_r
-- aggregation: rows hops, columns D_r quartile, cell = error rate.
-- Quartiles are rank-based over the distinct questions (a question asked
-- of several models weighs once), separately per (sim_func, dr_agg):
-- questions are ordered by (difficulty, question_id) and the question of
-- rank r among N falls in quartile intDiv((r − 1) × 4, N) + 1, so the four
-- bins differ in size by one at most (ties in D_r are split by
-- question_id). 18.16 has no window functions: the ranks come from a
-- sorted groupArray and arrayCumSum.
-- error_rate = 1 − the mean of per-question accuracies (the default: each
-- question weighs the same), error_rate_pooled = 1 − correct / n over
-- outcomes. questions counts (model, question) pairs in the cell,
-- dr_min/dr_max the difficulty range it covers.
CREATE VIEW IF NOT EXISTS robustream.grade_matrix_by_dr_agg AS
SELECT
    model_id, hops, dr_quartile,
    sum(row_n) AS n,
    1 - avg(row_correct / row_n) AS error_rate,
    count() AS questions,
    sim_func, dr_agg,
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
            SELECT
                sim_func, dr_agg,
                arraySort(groupArray((difficulty, question_id, model_id, hops, n, correct))) AS sorted
            FROM robustream.grade_questions
            GROUP BY sim_func, dr_agg
        )
    )
    ARRAY JOIN sorted AS row, ranks AS rank
)
GROUP BY sim_func, dr_agg, model_id, hops, dr_quartile;

-- The matrix under GRADE's own D_r (the least similar chunk, dr_agg min),
-- per similarity function.
CREATE VIEW IF NOT EXISTS robustream.grade_matrix AS
SELECT model_id, hops, dr_quartile, n, error_rate, questions, sim_func, error_rate_pooled, dr_min, dr_max
FROM robustream.grade_matrix_by_dr_agg
WHERE dr_agg = 'min';

-- PRGB per model: the mean data-point score (each point is the mean over
-- its placeholder variants) and the shares of points all correct (score
-- 1), partially correct and all wrong (score 0).
CREATE VIEW IF NOT EXISTS robustream.prgb_scores AS
SELECT
    model_id,
    points AS n,
    score_sum / points AS score,
    all_correct / points AS all_correct_share,
    partial / points AS partial_share,
    all_wrong / points AS all_wrong_share
FROM
(
    SELECT
        model_id,
        count() AS points,
        sum(score) AS score_sum,
        countIf(score = 1) AS all_correct,
        countIf(score > 0 AND score < 1) AS partial,
        countIf(score = 0) AS all_wrong
    FROM robustream.prgb_points
    GROUP BY model_id
);

-- PRGB per model and task class (filtering, combination, reasoning).
CREATE VIEW IF NOT EXISTS robustream.prgb_task_scores AS
SELECT
    model_id, task_class,
    points AS n,
    score_sum / points AS score,
    all_correct / points AS all_correct_share,
    partial / points AS partial_share,
    all_wrong / points AS all_wrong_share
FROM
(
    SELECT
        model_id, task_class,
        count() AS points,
        sum(score) AS score_sum,
        countIf(score = 1) AS all_correct,
        countIf(score > 0 AND score < 1) AS partial,
        countIf(score = 0) AS all_wrong
    FROM robustream.prgb_points
    GROUP BY model_id, task_class
);
