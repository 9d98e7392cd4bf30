-- SET and RESET of configuration keys
-- oracle: SELECT user_id, COUNT(*) FROM orders GROUP BY user_id
SET 'parallelism.default' = '2';
SET 'pipeline.name' = 'corpus job';
RESET 'pipeline.name';
SELECT user_id, COUNT(*) FROM orders GROUP BY user_id;
