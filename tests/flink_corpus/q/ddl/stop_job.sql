-- STOP JOB '...' WITH SAVEPOINT (SQL client)
-- flink-refuses
-- names: no running job
-- No job has this id (Flink's SQL client fails on it too): refused, naming the id.
STOP JOB '228d70913eab60dda85c5e7f78b5782c' WITH SAVEPOINT;
