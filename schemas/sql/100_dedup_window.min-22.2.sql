-- Insert deduplication for non-replicated tables (docs/architecture.md,
-- Delivery contract). Applied only on engines at or above the version in this
-- file's name (ClickHouse 22.2 added non_replicated_deduplication_window with
-- insert_deduplication_token following in 22.x); older servers skip it and
-- the sink is at-least-once there.
--
-- The window goes on every raw table, so that a retried batch (same
-- insert_deduplication_token) is dropped, and on every rolling target too:
-- with deduplicate_blocks_in_dependent_materialized_views the view's block is
-- deduplicated in its target table, which needs a window of its own —
-- checked on chDB 26.5: without it a retried block is dropped from outcomes
-- but counted again by the view.
ALTER TABLE robustream.documents MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE robustream.chunks MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE robustream.triplets MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE robustream.questions MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE robustream.question_retirements MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE robustream.variants MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE robustream.eval_results MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE robustream.outcomes MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE robustream.alerts MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE robustream.alert_summaries MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE robustream.robustness_5m MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE robustream.robustness_1h MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE robustream.robustness_1d MODIFY SETTING non_replicated_deduplication_window = 10000;
