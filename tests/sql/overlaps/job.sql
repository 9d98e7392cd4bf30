-- (start, end | interval) OVERLAPS (start, end | interval): Flink's two
-- documented examples (TRUE, FALSE), a reversed pair that touches the other
-- at one end (TRUE: ends count), and a NULL end that still decides FALSE.
SELECT (TIME '2:55:00', INTERVAL '1' HOUR) OVERLAPS (TIME '3:30:00', INTERVAL '2' HOUR),
       (TIME '9:00:00', TIME '10:00:00') OVERLAPS (TIME '10:15:00', INTERVAL '3' HOUR),
       (DATE '2020-01-10', DATE '2020-01-01') OVERLAPS (DATE '2020-01-10', DATE '2020-02-01'),
       (TIMESTAMP '2020-01-01 00:00:00', CAST(NULL AS TIMESTAMP)) OVERLAPS
         (TIMESTAMP '2020-02-01 00:00:00', TIMESTAMP '2020-03-01 00:00:00');
