-- Functions > String: CONCAT, CONCAT_WS
-- oracle: VALUES ('abc', 'a-b-c')
SELECT CONCAT('a', 'b', 'c'), CONCAT_WS('-', 'a', 'b', 'c');
