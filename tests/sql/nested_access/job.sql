-- ARRAY, MAP and ROW columns read from nested JSON, with NULLs at every
-- level: element access (1-based, NULL outside the array, NULL for a missing
-- key), field access through two levels (a missing field is NULL), and
-- CARDINALITY, ELEMENT, ARRAY_CONTAINS, ARRAY_DISTINCT, MAP_KEYS, MAP_VALUES.
-- Expected rows follow Flink's documented semantics: a function of a NULL
-- collection is NULL; ARRAY_CONTAINS finds a NULL element.
CREATE TABLE orders (
  id INT,
  tags ARRAY<STRING>,
  attrs MAP<STRING, STRING>,
  addr ROW<city STRING, geo ROW<lat DOUBLE, lon DOUBLE>>,
  qty ARRAY<INT>
) WITH ('connector' = 'filesystem', 'path' = 'orders.json', 'format' = 'json');

SELECT id, tags[1] AS t1, tags[3] AS t3, tags[0] AS t0, tags[4] AS t4,
       attrs['size'] AS size, attrs['color'] AS color, attrs['none'] AS none,
       addr.city AS city, addr.geo.lat AS lat, orders.addr.geo.lon AS lon,
       CARDINALITY(tags) AS nt, CARDINALITY(attrs) AS na,
       ARRAY_CONTAINS(tags, 'red') AS has_red, ARRAY_CONTAINS(tags, CAST(NULL AS STRING)) AS has_null,
       ARRAY_DISTINCT(qty) AS dq, MAP_KEYS(attrs) AS ks, MAP_VALUES(attrs) AS vs
FROM orders;

SELECT id, ELEMENT(tags) AS only_tag, tags IS NULL AS no_tags, addr.geo IS NULL AS no_geo,
       tags = ARRAY['red'] AS just_red, addr <> ROW('Oslo', ROW(59.9E0, 10.7E0)) AS not_oslo
FROM orders WHERE id <> 1;
