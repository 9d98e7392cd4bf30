-- Functions > Value Access: a field of a constructed ROW value
-- oracle: VALUES ('b')
SELECT (ROW('a', 'b')).EXPR$1;
