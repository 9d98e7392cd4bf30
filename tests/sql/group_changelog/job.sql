-- Non-windowed aggregation over an unbounded stream is an updating result.
CREATE TABLE clicks (user_id STRING, url STRING) WITH (
  'connector' = 'filesystem', 'path' = 'clicks.json', 'format' = 'json');

SELECT user_id, COUNT(*) AS n, COUNT(DISTINCT url) AS urls FROM clicks GROUP BY user_id;
