-- The one database robustream owns (ARCHITECTURE §11). Every statement in
-- these files names it explicitly so that they run on any session default.
CREATE DATABASE IF NOT EXISTS robustream;
