-- Queries > Model inference: ML_PREDICT over a CREATE MODEL (Flink 2.1)
CREATE MODEL m INPUT (x STRING) OUTPUT (y STRING) WITH ('provider' = 'openai', 'task' = 'classification');
SELECT * FROM ML_PREDICT(TABLE customers, MODEL m, DESCRIPTOR(name));
