-- A hint weir does not know is an error naming it (Flink's planner
-- refuses an unregistered hint too); misspelling a hint is not silent.
CREATE TABLE x (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (id INT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT /*+ STATE_TL('x' = '1d') */ id FROM x;
