-- CROSS JOIN UNNEST of an ARRAY of ROWs (spread into the ROW's fields), of
-- an ARRAY of scalars WITH ORDINALITY, and of a MAP (key, value); LEFT JOIN
-- UNNEST ... ON TRUE keeps a row with an empty or NULL collection, padded
-- with NULLs. The event time passes through: a tumbling window counts the
-- unnested rows. Expected rows follow Flink's documented UNNEST semantics
-- (an empty or NULL collection gives no row to an inner join).
CREATE TABLE orders (
  id INT,
  ts TIMESTAMP(3),
  items ARRAY<ROW<sku STRING, n INT>>,
  tags ARRAY<STRING>,
  props MAP<STRING, INT>,
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = 'orders.json', 'format' = 'json');

SELECT o.id, i.sku, i.n FROM orders AS o CROSS JOIN UNNEST(o.items) AS i(sku, n);

SELECT id, tag, pos FROM orders, UNNEST(tags) WITH ORDINALITY AS t(tag, pos);

SELECT id, k, v FROM orders CROSS JOIN UNNEST(props) AS p(k, v) WHERE v IS NOT NULL;

SELECT id, tag FROM orders LEFT JOIN UNNEST(tags) AS t(tag) ON TRUE;

CREATE VIEW tagged AS SELECT id, ts, tag FROM orders CROSS JOIN UNNEST(tags) AS t(tag);

SELECT window_start, tag, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE tagged, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, tag;
