-- Which questions are retired now (docs/architecture.md, ClickHouse schema).
-- A question can be retired and later asked again with the same id: its
-- document deleted and restored, a fact changed and changed back, a cap
-- that frees its place. So a question is retired when its latest
-- retirement is at least as new as its latest emission, not when it was
-- ever retired. produced_at_us (Unix microseconds) orders the two: one
-- second is too coarse, the questions stage often emits a question and
-- retires it within the same second. Rows written before the column
-- existed hold 0 there and are read at their produced_at's second; at a
-- tie the retirement wins.
--
-- 010 and 040 create new data directories with the column; these add it
-- to older ones in place (schemas.AddColumn).
ALTER TABLE robustream.questions ADD COLUMN IF NOT EXISTS produced_at_us UInt64;
ALTER TABLE robustream.question_retirements ADD COLUMN IF NOT EXISTS produced_at_us UInt64;

-- The questions retired now, with the reason and time (Unix microseconds)
-- of their latest retirement. No window functions (18.16): both tables in
-- one UNION ALL, grouped by question.
DROP TABLE IF EXISTS robustream.retired_questions;
CREATE VIEW IF NOT EXISTS robustream.retired_questions AS
SELECT
    question_id,
    argMaxIf(reason, at, retirement = 1) AS reason,
    maxIf(at, retirement = 1) AS retired_at_us
FROM
(
    SELECT question_id, reason, if(produced_at_us = 0, toUInt64(produced_at) * 1000000, produced_at_us) AS at, 1 AS retirement
    FROM robustream.question_retirements
    UNION ALL
    SELECT question_id, '' AS reason, if(produced_at_us = 0, toUInt64(produced_at) * 1000000, produced_at_us) AS at, 0 AS retirement
    FROM robustream.questions
)
GROUP BY question_id
HAVING countIf(retirement = 1) > 0 AND maxIf(at, retirement = 1) >= maxIf(at, retirement = 0);

-- The questions being asked now.
DROP TABLE IF EXISTS robustream.active_questions;
CREATE VIEW IF NOT EXISTS robustream.active_questions AS
SELECT *
FROM robustream.questions
WHERE question_id NOT IN (SELECT question_id FROM robustream.retired_questions);

-- Outcomes of the questions being asked now, the latest evaluation of each
-- (model, question, variant, family, metric): a question asked again has
-- its outcomes again (under new ids), and current metrics count it once.
-- History (robustream.outcomes) keeps every evaluation.
DROP TABLE IF EXISTS robustream.current_outcomes;
CREATE VIEW IF NOT EXISTS robustream.current_outcomes AS
SELECT *
FROM robustream.outcomes
WHERE question_id NOT IN (SELECT question_id FROM robustream.retired_questions)
  AND outcome_id IN (SELECT argMax(outcome_id, produced_at)
      FROM robustream.outcomes
      GROUP BY model_id, question_id, variant_id, family, metric);
