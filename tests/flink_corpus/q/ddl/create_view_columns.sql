-- CREATE VIEW with a column list
-- oracle: SELECT user_id, COUNT(*) FROM orders GROUP BY user_id
CREATE VIEW per_user (u, n) AS SELECT user_id, COUNT(*) FROM orders GROUP BY user_id;
SELECT u, n FROM per_user;
