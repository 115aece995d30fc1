-- Generated from processors/metrics (go generate ./processors/metrics); do not edit.
-- Score views (docs/architecture.md, ClickHouse schema; what the scores mean:
-- docs/methods.md). Every metric family is declared once, in processors/metrics;
-- this file and 050_score_aggregates.sql are written from those declarations. Two
-- layers, all plain views (nothing is stored):
--
--   row views (this file): one row per scored unit, with its evaluated_at and
--   published_at, read FINAL from outcomes (an outcome delivered twice counts
--   once even before the merge).
--
--   aggregations (050_score_aggregates.sql): the scores over all time, with stable
--   names. A time window is the same query with a WHERE on the row view (18.16
--   has no parameterized views); the dashboard, the report and
--   docs/queries.sql run exactly that.
--
-- A plain view is dropped and created again at every migration, so a changed
-- definition reaches data dirs made by older builds. DROP TABLE: servers
-- before 20.x know no DROP VIEW. Aggregations read the row views, so they are
-- dropped first. Aggregates are computed in an inner query under names that
-- do not shadow stored columns: ClickHouse resolves an alias before a column.
DROP TABLE IF EXISTS robustream.rare_scores;
DROP TABLE IF EXISTS robustream.rare_retrieval_scores;
DROP TABLE IF EXISTS robustream.retrieval_hit_rates;
DROP TABLE IF EXISTS robustream.sure_scores;
DROP TABLE IF EXISTS robustream.sure_kind_scores;
DROP TABLE IF EXISTS robustream.sure_split_scores;
DROP TABLE IF EXISTS robustream.sure_model_scores;
DROP TABLE IF EXISTS robustream.grade_matrix_by_dr_agg;
DROP TABLE IF EXISTS robustream.grade_matrix;
DROP TABLE IF EXISTS robustream.grade_dr_quartiles;
DROP TABLE IF EXISTS robustream.prgb_scores;
DROP TABLE IF EXISTS robustream.prgb_task_scores;
DROP TABLE IF EXISTS robustream.rare_question_scores;
DROP TABLE IF EXISTS robustream.rare_retrieval_questions;
DROP TABLE IF EXISTS robustream.sure_instances;
DROP TABLE IF EXISTS robustream.grade_questions;
DROP TABLE IF EXISTS robustream.prgb_points;

-- RARE · rare_question_scores
-- RARE (§3.3, Table 2): one row per (model, question) with its judge f outcomes
-- counted and summed per axis, and the question's own means; NaN where the
-- question has no outcome on an axis. Only RARE's axes count (RAREWhere): a
-- RARE row on another axis, written by builds before families declared their
-- axes, never moves RARE's scores.
CREATE VIEW IF NOT EXISTS robustream.rare_question_scores AS
SELECT
    model_id, question_id, pattern, hops, domain, published_at,
    last_evaluated AS evaluated_at,
    cnt AS n,
    f_sum,
    query_cnt AS query_n, query_f AS query_sum,
    document_cnt AS document_n, document_f AS document_sum,
    retrieval_cnt AS retrieval_n, retrieval_f AS retrieval_sum,
    f_sum / cnt AS overall,
    if(query_cnt = 0, nan, query_f / query_cnt) AS query_robustness,
    if(document_cnt = 0, nan, document_f / document_cnt) AS document_robustness,
    if(retrieval_cnt = 0, nan, retrieval_f / retrieval_cnt) AS retrieval_robustness
FROM
(
    SELECT
        model_id, question_id, pattern, hops, domain, published_at,
        max(evaluated_at) AS last_evaluated,
        count() AS cnt,
        sum(value) AS f_sum,
        countIf(axis = 'query') AS query_cnt,
        sumIf(value, axis = 'query') AS query_f,
        countIf(axis = 'document') AS document_cnt,
        sumIf(value, axis = 'document') AS document_f,
        countIf(axis = 'retrieval') AS retrieval_cnt,
        sumIf(value, axis = 'retrieval') AS retrieval_f
    FROM robustream.outcomes FINAL
    WHERE family = 'rare' AND metric = 'f' AND axis IN ('original', 'query', 'document', 'retrieval', 'cross')
    GROUP BY model_id, question_id, pattern, hops, domain, published_at
);

-- RARE · rare_retrieval_questions
-- RARE's retrieval cells: one row per (model, question, retriever), the
-- retriever being the retrieval variant's kind (bm25_top3, emb_<name>_top3),
-- with the mean f over its outcomes.
CREATE VIEW IF NOT EXISTS robustream.rare_retrieval_questions AS
SELECT
    model_id, question_id, retriever, pattern, hops, domain, published_at,
    last_evaluated AS evaluated_at,
    cnt AS n,
    f_sum,
    f_sum / cnt AS retrieval_robustness
FROM
(
    SELECT
        model_id, question_id, kind AS retriever, pattern, hops, domain, published_at,
        max(evaluated_at) AS last_evaluated,
        count() AS cnt,
        sum(value) AS f_sum
    FROM robustream.outcomes FINAL
    WHERE family = 'rare' AND metric = 'f' AND axis IN ('original', 'query', 'document', 'retrieval', 'cross') AND axis = 'retrieval'
    GROUP BY model_id, question_id, kind, pattern, hops, domain, published_at
);

-- SURE · sure_instances
-- SURE (§3.4): one row per (model, perturbed instance), from its two outcomes
-- (metric c and y_original). Y(perturbed) = y_original − c. known = correct
-- closed book, golden = the context holds an answer. y_original (and so
-- y_perturbed) is NaN for an instance without its y_original row.
CREATE VIEW IF NOT EXISTS robustream.sure_instances AS
SELECT
    model_id, question_id, variant_id, axis, kind, known, golden,
    pattern, hops, domain, published_at,
    last_evaluated AS evaluated_at,
    c_value AS c,
    y_orig AS y_original,
    y_orig - c_value AS y_perturbed
FROM
(
    SELECT
        model_id, question_id, variant_id, axis, kind, known, golden,
        pattern, hops, domain, published_at,
        max(evaluated_at) AS last_evaluated,
        countIf(metric = 'c') AS c_rows,
        sumIf(value, metric = 'c') AS c_value,
        if(countIf(metric = 'y_original') = 0, nan, sumIf(value, metric = 'y_original')) AS y_orig
    FROM robustream.outcomes FINAL
    WHERE family = 'sure'
    GROUP BY model_id, question_id, variant_id, axis, kind, known, golden,
        pattern, hops, domain, published_at
)
WHERE c_rows > 0;

-- GRADE · grade_questions
-- GRADE (§3.3): one row per (model, question, D_r aggregation) with the
-- question's correctness under top-k retrieval (grade outcomes: value 1 =
-- correct), its hops and its difficulty. sim_func comes from the question
-- (robustream.questions, latest version): D_r from different similarity
-- functions never share quartiles ('' when the question row is missing).
-- dr_agg names how the question's chunk similarities were collapsed into D_r
-- (GRADE Table 3): min is the outcome's d_r, mean and power_mean (p = −2) are
-- the question's QA scores dr_mean and dr_power_mean when the question stage
-- records them, and absent otherwise.
CREATE VIEW IF NOT EXISTS robustream.grade_questions AS
SELECT
    model_id, question_id, sim_func, dr_agg, difficulty, hops, pattern, domain,
    published_at, evaluated_at, n, correct, accuracy
FROM
(
    SELECT
        model_id, question_id, sim_func, hops, pattern, domain, published_at,
        last_evaluated AS evaluated_at,
        cnt AS n,
        correct_sum AS correct,
        correct_sum / cnt AS accuracy,
        q_dr,
        if(indexOf(score_names, 'dr_mean') = 0, nan, score_values[indexOf(score_names, 'dr_mean')]) AS q_dr_mean,
        if(indexOf(score_names, 'dr_power_mean') = 0, nan, score_values[indexOf(score_names, 'dr_power_mean')]) AS q_dr_power_mean
    FROM
    (
        SELECT
            model_id, question_id, hops, pattern, domain, published_at,
            max(d_r) AS q_dr,
            max(evaluated_at) AS last_evaluated,
            count() AS cnt,
            sum(value) AS correct_sum
        FROM robustream.outcomes FINAL
        WHERE family = 'grade'
        GROUP BY model_id, question_id, hops, pattern, domain, published_at
    ) AS graded
    ALL LEFT JOIN
    (
        SELECT
            question_id,
            argMax(sim_func, produced_at) AS sim_func,
            argMax(qa_score_names, produced_at) AS score_names,
            argMax(qa_score_values, produced_at) AS score_values
        FROM robustream.questions
        GROUP BY question_id
    ) AS facts USING question_id
)
ARRAY JOIN
    ['min', 'mean', 'power_mean'] AS dr_agg,
    [q_dr, q_dr_mean, q_dr_power_mean] AS difficulty
WHERE NOT isNaN(difficulty);

-- PRGB · prgb_points
-- PRGB: one row per data point, a (model, question), with its score, the mean
-- over its placeholder variants. The PRGB family records a data point's task
-- class (filtering, combination, reasoning) as the outcomes' metric.
CREATE VIEW IF NOT EXISTS robustream.prgb_points AS
SELECT
    model_id, question_id, task_class, pattern, hops, domain, published_at,
    last_evaluated AS evaluated_at,
    cnt AS variants,
    point_score AS score
FROM
(
    SELECT
        model_id, question_id, metric AS task_class, pattern, hops, domain, published_at,
        max(evaluated_at) AS last_evaluated,
        count() AS cnt,
        avg(value) AS point_score
    FROM robustream.outcomes FINAL
    WHERE family = 'prgb'
    GROUP BY model_id, question_id, metric, pattern, hops, domain, published_at
);
