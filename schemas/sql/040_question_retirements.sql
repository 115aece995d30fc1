-- Questions that left evaluation: their document's new version no longer
-- states a fact they rest on, or a new fact made them ambiguous. The
-- question stays in robustream.questions (history); this table says when
-- and why it stopped being asked.
CREATE TABLE IF NOT EXISTS robustream.question_retirements
(
    question_id String,
    reason      String,
    doc_id      String,
    produced_at DateTime
)
ENGINE = ReplacingMergeTree(produced_at)
ORDER BY question_id;

-- The questions being asked now.
DROP TABLE IF EXISTS robustream.active_questions;
CREATE VIEW IF NOT EXISTS robustream.active_questions AS
SELECT *
FROM robustream.questions
WHERE question_id NOT IN (SELECT question_id FROM robustream.question_retirements);

-- Outcomes of the questions being asked now: current metrics leave
-- retired questions out, history keeps them.
DROP TABLE IF EXISTS robustream.current_outcomes;
CREATE VIEW IF NOT EXISTS robustream.current_outcomes AS
SELECT *
FROM robustream.outcomes
WHERE question_id NOT IN (SELECT question_id FROM robustream.question_retirements);
