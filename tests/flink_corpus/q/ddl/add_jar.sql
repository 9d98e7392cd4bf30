-- ADD JAR
ADD JAR '/tmp/udf.jar';
SELECT 1;
