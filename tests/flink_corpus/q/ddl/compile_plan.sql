-- COMPILE PLAN ... FOR INSERT
CREATE TABLE bh (user_id STRING) WITH ('connector' = 'blackhole');
COMPILE PLAN 'file:///tmp/plan.json' FOR INSERT INTO bh SELECT user_id FROM orders;
