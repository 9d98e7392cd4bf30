-- JSON_OBJECTAGG is not supported yet: refused naming the function.
SELECT JSON_OBJECTAGG(KEY CAST(x AS STRING) VALUE x) FROM (VALUES (1), (2)) AS t(x);
