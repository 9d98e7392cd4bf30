-- Sub-plan reuse skips calcs whose value differs per call: the two RAND()
-- projections are two columns of random numbers, not one read twice (Flink
-- does not reuse non-deterministic calcs either); the source is shared.
CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3');
EXPLAIN SELECT id, RAND() FROM g UNION ALL SELECT id, RAND() FROM g;
