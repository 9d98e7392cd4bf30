-- ROW, ARRAY and MAP values as GROUP BY keys (equal values group together,
-- NULL is a key of its own), a ROW field as a key, and nested values
-- written back out as nested JSON by a filesystem sink (objects for ROW and
-- MAP, arrays for ARRAY, null where NULL), built with ARRAY[...], MAP[...]
-- and ROW(...) constructors.
CREATE TABLE ev (
  `user` ROW<name STRING, tier INT>,
  path ARRAY<STRING>,
  ctx MAP<STRING, STRING>,
  ms BIGINT
) WITH ('connector' = 'filesystem', 'path' = 'ev.json', 'format' = 'json');
CREATE TABLE out_json (
  u ROW<name STRING, tier INT>,
  path ARRAY<STRING>,
  ctx MAP<STRING, STRING>,
  n BIGINT,
  made ROW<ids ARRAY<BIGINT>, m MAP<STRING, BIGINT>>
) WITH ('connector' = 'filesystem', 'path' = 'out_json', 'format' = 'json');

SELECT `user`, path, COUNT(*) AS n, SUM(ms) AS total FROM ev GROUP BY `user`, path;

SELECT `user`.name AS name, COUNT(*) AS n FROM ev GROUP BY `user`.name;

INSERT INTO out_json
SELECT `user`, path, ctx, ms, ROW(ARRAY[ms, ms * 10], MAP['ms', ms]) FROM ev;
