-- LOAD MODULE hive / SHOW MODULES
LOAD MODULE hive WITH ('hive-version' = '3.1.3');
SELECT 1;
