-- Generated from processors/metrics (go generate ./processors/metrics); do not edit.
-- Score aggregations over all time, per family, from the row views of
-- 030_score_views.sql (dropped there and created again here at every migration).
-- Each is its family's query with no window; docs/queries.sql shows it with one.

-- RARE · rare_scores
-- RARE's scores per model (RARE §3.3.1–3.3.4, eqs. 1–4). Two aggregations across
-- questions, each named: overall, query_robustness, document_robustness,
-- retrieval_robustness are means of per-question means (every question weighs
-- the same, however many variants it has; a question counts for an axis only
-- if it has an outcome there); *_pooled are means over all outcome rows. n
-- counts outcomes, questions (model, question) pairs; NaN where a model has no
-- outcome on an axis.
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

-- RARE · rare_retrieval_scores
-- RARE's retrieval robustness per model and retriever (RARE §3.3.4, eq. 4): the
-- mean f over the retriever's top-k contexts with the original query, a mean of
-- per-question means (pooled beside it).
CREATE VIEW IF NOT EXISTS robustream.rare_retrieval_scores AS
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
    GROUP BY model_id, retriever
);

-- RARE · retrieval_hit_rates
-- Retrieval hit rate per model that retrieves its own contexts (a RAG service):
-- the share of its answers whose passages include a ground-truth chunk. A
-- model without such outcomes has no row.
CREATE VIEW IF NOT EXISTS robustream.retrieval_hit_rates AS
SELECT
    model_id,
    hit_sum / hit_n AS hit_rate,
    hit_n AS n
FROM
(
    SELECT model_id, count() AS hit_n, sum(value) AS hit_sum
    FROM robustream.outcomes FINAL
    WHERE family = 'rare' AND metric = 'retrieval_hit'
    GROUP BY model_id
);

-- SURE · sure_scores
-- SURE per perturbation kind and Known/Unknown × Golden/Noise: RR, WR and LR are
-- the shares of instances with C = 0, −1 and 1 (they add up to 1).
-- acc_original is the mean Y(original) over the same instances and
-- acc_perturbed = acc_original + WR − LR, the mean Y(perturbed).
CREATE VIEW IF NOT EXISTS robustream.sure_scores AS
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
    GROUP BY model_id, axis, kind, known, golden
);

-- SURE · sure_kind_scores
-- SURE per perturbation kind over every Known/Golden cell.
CREATE VIEW IF NOT EXISTS robustream.sure_kind_scores AS
SELECT
    model_id,
    axis,
    kind,
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
        count() AS cnt,
        countIf(c = 0) AS rr_cnt,
        countIf(c = -1) AS wr_cnt,
        countIf(c = 1) AS lr_cnt,
        sum(y_original) AS y_orig_sum
    FROM robustream.sure_instances
    GROUP BY model_id, axis, kind
);

-- SURE · sure_split_scores
-- SURE per Known/Unknown × Golden/Noise cell over every kind.
CREATE VIEW IF NOT EXISTS robustream.sure_split_scores AS
SELECT
    model_id,
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
        known,
        golden,
        count() AS cnt,
        countIf(c = 0) AS rr_cnt,
        countIf(c = -1) AS wr_cnt,
        countIf(c = 1) AS lr_cnt,
        sum(y_original) AS y_orig_sum
    FROM robustream.sure_instances
    GROUP BY model_id, known, golden
);

-- SURE · sure_model_scores
-- SURE per model over every kind and cell.
CREATE VIEW IF NOT EXISTS robustream.sure_model_scores AS
SELECT
    model_id,
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
        count() AS cnt,
        countIf(c = 0) AS rr_cnt,
        countIf(c = -1) AS wr_cnt,
        countIf(c = 1) AS lr_cnt,
        sum(y_original) AS y_orig_sum
    FROM robustream.sure_instances
    GROUP BY model_id
);

-- GRADE · grade_matrix_by_dr_agg
-- GRADE's matrix (§3.3, eq. 1, §4) for every similarity function and D_r
-- aggregation: rows hops, columns D_r quartile, cell = error rate.
-- Quartiles are rank-based over the distinct questions (a question asked of
-- several models weighs once), separately per (sim_func, dr_agg): questions
-- are ordered by (difficulty, question_id) and the question of rank r among N
-- falls in quartile intDiv((r − 1) × 4, N) + 1, so the four bins differ in
-- size by one at most (ties in D_r are split by question_id). 18.16 has no
-- window functions: the ranks come from a sorted groupArray and arrayCumSum.
-- error_rate = 1 − the mean of per-question accuracies (each question weighs
-- the same), error_rate_pooled = 1 − correct / n over outcomes. questions
-- counts (model, question) pairs in the cell, dr_min/dr_max the difficulty
-- range it covers.
CREATE VIEW IF NOT EXISTS robustream.grade_matrix_by_dr_agg AS
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
            GROUP BY sim_func, dr_agg
        )
    )
    ARRAY JOIN sorted AS row, ranks AS rank
)
GROUP BY sim_func, dr_agg, model_id, hops, dr_quartile;

-- GRADE · grade_matrix
-- The matrix under GRADE's own D_r (the least similar chunk, dr_agg min), per similarity function.
CREATE VIEW IF NOT EXISTS robustream.grade_matrix AS
SELECT
    model_id,
    hops,
    dr_quartile,
    sum(row_n) AS n,
    1 - avg(row_correct / row_n) AS error_rate,
    count() AS questions,
    sim_func,
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
            WHERE dr_agg = 'min'
            GROUP BY sim_func, dr_agg
        )
    )
    ARRAY JOIN sorted AS row, ranks AS rank
)
GROUP BY sim_func, dr_agg, model_id, hops, dr_quartile;

-- GRADE · grade_dr_quartiles
-- The D_r quartiles themselves, per similarity function and D_r aggregation:
-- how many distinct questions each holds and the D_r range it covers.
CREATE VIEW IF NOT EXISTS robustream.grade_dr_quartiles AS
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
            GROUP BY sim_func, dr_agg
        )
    )
    ARRAY JOIN sorted AS row, ranks AS rank
)
GROUP BY sim_func, dr_agg, dr_quartile;

-- PRGB · prgb_scores
-- PRGB per model: the mean data-point score (each point is the mean over its
-- placeholder variants) and the shares of points all correct (score 1),
-- partially correct and all wrong (score 0).
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

-- PRGB · prgb_task_scores
-- PRGB per model and task class (filtering, combination, reasoning).
CREATE VIEW IF NOT EXISTS robustream.prgb_task_scores AS
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
    GROUP BY model_id, task_class
);
