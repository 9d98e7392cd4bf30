-- (a - b) MONTH of two TIMESTAMP_LTZ values is refused: the whole months
-- between two instants depend on the time zone they are read in.
CREATE TABLE t (id INT, s TIMESTAMP_LTZ(3), e TIMESTAMP_LTZ(3))
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT id, (e - s) MONTH FROM t;
