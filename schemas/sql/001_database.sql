-- The one database robustream owns (docs/architecture.md, ClickHouse schema).
-- Every statement in these files names it explicitly so that they run on any
-- session default.
CREATE DATABASE IF NOT EXISTS robustream;
