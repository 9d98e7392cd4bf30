-- Functions > Temporal: CONVERT_TZ
-- oracle: VALUES ('1970-01-01 08:00:00')
SELECT CONVERT_TZ('1970-01-01 00:00:00', 'UTC', 'Asia/Shanghai');
