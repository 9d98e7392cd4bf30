-- ORDER BY ... LIMIT on a stream is a Top-N without partition (as Flink
-- plans it): an updating result without the rank number. Without an
-- offset the row that enters is +I and the one pushed out -D; with OFFSET
-- the positions are updated (-U/+U), as with the number; LIMIT alone keeps
-- the first rows; FETCH FIRST is LIMIT. Worked by hand from the input order.
CREATE TABLE t (item STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT 'top3', item, v FROM t ORDER BY v DESC LIMIT 3;
SELECT 'off1', t.item, v FROM t ORDER BY t.v LIMIT 2 OFFSET 1;
SELECT 'first2', item FROM t LIMIT 2;
SELECT 'fetch2', item, v AS value FROM t ORDER BY value DESC, item FETCH FIRST 2 ROWS ONLY;
-- ORDER BY a column the SELECT does not show
SELECT 'hidden', item FROM t ORDER BY v LIMIT 2;
