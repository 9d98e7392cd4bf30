-- Dynamic table options: an OPTIONS hint changes the options of one
-- reference to a table. t reads a.csv; the second reference reads b.csv
-- and skips its malformed line (an option t does not set), the view reads
-- b.csv through its own hinted reference, and the third reference (no
-- hint) still reads a.csv. The INSERT's target prints under the hinted
-- identifier instead of the table's.
CREATE TABLE t (id INT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE out_t (src STRING, id INT, v STRING) WITH ('connector' = 'print', 'print-identifier' = 'plain');
CREATE VIEW vb AS SELECT id, v FROM t /*+ OPTIONS('path' = 'b.csv', 'csv.ignore-parse-errors' = 'true') */;
INSERT INTO out_t /*+ OPTIONS('print-identifier' = 'hinted') */
SELECT 'a', id, v FROM t
UNION ALL
SELECT 'b', id, v FROM t /*+ OPTIONS('csv.ignore-parse-errors' = 'true', 'path' = 'b.csv') */
UNION ALL
SELECT 'view', id, v FROM vb
UNION ALL
SELECT 'a again', id, v FROM t;
