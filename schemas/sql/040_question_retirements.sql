-- Questions that left evaluation: their document's new version no longer
-- states a fact they rest on, or a new fact made them ambiguous, or the
-- document was deleted. The question stays in robustream.questions
-- (history); this table says when and why it stopped being asked. A
-- question asked again later (its document restored, its fact stated again)
-- is written to robustream.questions again: the views that say which
-- questions are retired now (retired_questions, active_questions,
-- current_outcomes) compare the two and live in 120_question_reasks.sql.
CREATE TABLE IF NOT EXISTS robustream.question_retirements
(
    question_id    String,
    reason         String,
    doc_id         String,
    produced_at    DateTime,
    produced_at_us UInt64
)
ENGINE = ReplacingMergeTree(produced_at)
ORDER BY question_id;
