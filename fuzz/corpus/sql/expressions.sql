SELECT CASE WHEN price >= 100 THEN 'high' WHEN price BETWEEN 10 AND 99 THEN 'mid' ELSE 'low' END AS band,
  CASE channel WHEN 'apple' THEN 0 ELSE 1 END, CAST(ts AS DATE), TRY_CAST(s AS INT), EXTRACT(HOUR FROM ts),
  DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm'), UNIX_TIMESTAMP(), TO_TIMESTAMP('2024-01-01 00:00:00'), CURRENT_WATERMARK(ts),
  SPLIT_INDEX(url, '/', 3), REGEXP_EXTRACT(url, '(&|^)id=([^&]*)', 2), 'it''s' || x, -price * 2 + 1 / 3,
  price IN (1, 2, 3), name SIMILAR TO '[A-Z]+', name LIKE 'a!_%' ESCAPE '!', x IS NOT DISTINCT FROM y,
  TIMESTAMP '2024-02-29 23:59:59.999', DATE '2024-01-01', TIME '12:00:00', INTERVAL '1-6' YEAR TO MONTH,
  INTERVAL '3 04:05:06.789' DAY TO SECOND, 1.5e-3, .25, X'CAFE', ARRAY[1, 2][1], MAP['k', 'v']['k'],
  COUNT(*) FILTER (WHERE price > 0), SUM(DISTINCT price), TRIM(BOTH ' ' FROM name), POSITION('x' IN name),
  SUBSTRING(name FROM 2 FOR 3), FLOOR(ts TO MINUTE), CURRENT_TIMESTAMP, `select`
FROM bid /*+ OPTIONS('scan.startup.mode' = 'earliest-offset') */ WHERE NOT (price < 0);
