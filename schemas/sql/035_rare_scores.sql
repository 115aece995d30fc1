-- RARE's scores. A plain view stores nothing, so it is dropped and created
-- again at every migration (DROP TABLE: servers before 20.x know no DROP
-- VIEW): a changed definition reaches data dirs made by
-- older builds. Only metric f counts: RARE's family also holds the
-- retrieval hit outcomes of models that retrieve their own contexts.
DROP TABLE IF EXISTS robustream.rare_scores;

-- RARE (Table 2 / §5): mean judge value f per model, overall and per axis,
-- from the hourly rollup. NaN where a model has no outcome on an axis.
CREATE VIEW IF NOT EXISTS robustream.rare_scores AS
SELECT
    model_id,
    if(all_n = 0, nan, all_sum / all_n) AS overall,
    if(query_n = 0, nan, query_sum / query_n) AS query_robustness,
    if(document_n = 0, nan, document_sum / document_n) AS document_robustness,
    if(retrieval_n = 0, nan, retrieval_sum / retrieval_n) AS retrieval_robustness,
    all_n AS n
FROM
(
    SELECT
        model_id,
        sum(n) AS all_n,
        sum(value_sum) AS all_sum,
        sumIf(n, axis = 'query') AS query_n,
        sumIf(value_sum, axis = 'query') AS query_sum,
        sumIf(n, axis = 'document') AS document_n,
        sumIf(value_sum, axis = 'document') AS document_sum,
        sumIf(n, axis = 'retrieval') AS retrieval_n,
        sumIf(value_sum, axis = 'retrieval') AS retrieval_sum
    FROM robustream.robustness_1h
    WHERE family = 'rare' AND metric = 'f'
    GROUP BY model_id
);

-- Retrieval hit rate per model that retrieves its own contexts (a RAG
-- service): the share of its answers whose passages include a
-- ground-truth chunk. NaN never: a model without such outcomes has no row.
CREATE VIEW IF NOT EXISTS robustream.retrieval_hit_rates AS
SELECT
    model_id,
    hit_sum / hit_n AS hit_rate,
    hit_n AS n
FROM
(
    SELECT model_id, sum(n) AS hit_n, sum(value_sum) AS hit_sum
    FROM robustream.robustness_1h
    WHERE family = 'rare' AND metric = 'retrieval_hit'
    GROUP BY model_id
);
