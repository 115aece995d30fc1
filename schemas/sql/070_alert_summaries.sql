-- What each firing and resolution of a drift alert says: the summary the
-- receivers get (what changed, what changed around it, the series it
-- explains), kept for the dashboard. A table of its own because 18.16
-- cannot add a column to robustream.alerts idempotently.
CREATE TABLE IF NOT EXISTS robustream.alert_summaries
(
    alert_id    String,
    state       String,
    summary     String,
    produced_at DateTime
)
ENGINE = ReplacingMergeTree(produced_at)
ORDER BY (alert_id, state);
