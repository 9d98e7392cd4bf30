-- A RETURNING type JSON_VALUE does not support is refused, naming it.
SELECT JSON_VALUE('{"d": "2024-01-02"}', '$.d' RETURNING DATE) AS d;
