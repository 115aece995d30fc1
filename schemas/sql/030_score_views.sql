-- Score views over all time (docs/architecture.md, ClickHouse schema; what
-- the scores mean: docs/methods.md, RARE's judge f and pairing). They are
-- plain views: nothing is stored, so a changed definition costs only a new
-- migration that drops and recreates the view. For a time window, read the
-- rolling tables (robustness_*) or outcomes with a WHERE on bucket /
-- evaluated_at.
--
-- Aggregates are computed in an inner query under names that do not shadow
-- the stored columns (n, value): ClickHouse resolves an alias before a
-- column, and sum(n) AS n would otherwise nest aggregates.

-- RARE's scores are in 035_rare_scores.sql.

-- SURE (§3.2): each sure outcome's value is C = Y(original) − Y(perturbed)
-- ∈ {−1, 0, 1}; RR, WR and LR are the shares of C = 0, −1 and 1, split by
-- Known (closed book) × Golden (context holds the answer).
CREATE VIEW IF NOT EXISTS robustream.sure_scores AS
SELECT
    model_id, axis, kind, known, golden,
    cnt AS n,
    rr_cnt / cnt AS rr,
    wr_cnt / cnt AS wr,
    lr_cnt / cnt AS lr
FROM
(
    SELECT
        model_id, axis, kind, known, golden,
        count() AS cnt,
        countIf(value = 0) AS rr_cnt,
        countIf(value = -1) AS wr_cnt,
        countIf(value = 1) AS lr_cnt
    FROM robustream.outcomes
    WHERE family = 'sure'
    GROUP BY model_id, axis, kind, known, golden
);

-- GRADE (eq. 1, §4): error rate per hops × D_r quartile, where each grade
-- outcome's value is 1 for a correct answer. Quartile bounds are taken over
-- the distinct questions, not the outcomes, so a question asked of many
-- models weighs once. The join on a constant stands in for window
-- functions, which 18.16 lacks.
CREATE VIEW IF NOT EXISTS robustream.grade_matrix AS
SELECT
    model_id,
    hops,
    multiIf(d_r <= bounds[1], 1, d_r <= bounds[2], 2, d_r <= bounds[3], 3, 4) AS dr_quartile,
    count() AS n,
    1 - avg(value) AS error_rate
FROM
(
    SELECT model_id, hops, d_r, value, 1 AS join_key
    FROM robustream.outcomes
    WHERE family = 'grade'
) AS graded
ALL INNER JOIN
(
    SELECT 1 AS join_key, quantilesExact(0.25, 0.5, 0.75)(q_dr) AS bounds
    FROM
    (
        SELECT question_id, any(d_r) AS q_dr
        FROM robustream.outcomes
        WHERE family = 'grade'
        GROUP BY question_id
    )
) AS quartiles USING join_key
GROUP BY model_id, hops, dr_quartile;

-- PRGB: a data point is a (model, question); its score is the mean over its
-- placeholder variants, and points are all-correct, partially correct or
-- all-wrong.
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
        sum(point_score) AS score_sum,
        countIf(point_score = 1) AS all_correct,
        countIf(point_score > 0 AND point_score < 1) AS partial,
        countIf(point_score = 0) AS all_wrong
    FROM
    (
        SELECT model_id, question_id, avg(value) AS point_score
        FROM robustream.outcomes
        WHERE family = 'prgb'
        GROUP BY model_id, question_id
    )
    GROUP BY model_id
);
