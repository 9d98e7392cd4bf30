-- Joins of updating inputs: a GROUP BY result changes as clicks arrive,
-- and the join retracts and re-emits the rows it joined. The last query
-- is Nexmark q5's shape: counts per (group, user) joined with the maximum
-- per group, keeping the users whose count reaches the maximum.
CREATE TABLE clicks (user_id STRING, grp STRING, url STRING) WITH (
  'connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv');
CREATE TABLE users (id STRING, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'users.csv', 'format' = 'csv');
CREATE TABLE out_inner (name STRING, n BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_inner', 'format' = 'debezium-json');
CREATE TABLE out_left (id STRING, n BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_left', 'format' = 'debezium-json');
CREATE TABLE out_top (grp STRING, user_id STRING, n BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_top', 'format' = 'debezium-json');

CREATE VIEW counts AS SELECT user_id, COUNT(*) AS n FROM clicks GROUP BY user_id;

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_inner SELECT u.name, c.n FROM counts c JOIN users u ON c.user_id = u.id;
  INSERT INTO out_left SELECT u.id, c.n FROM users u LEFT JOIN counts c ON c.user_id = u.id;
  INSERT INTO out_top
  SELECT g.grp, g.user_id, g.n
  FROM (SELECT grp, user_id, COUNT(*) AS n FROM clicks GROUP BY grp, user_id) AS g
  JOIN (SELECT grp, MAX(n) AS maxn
        FROM (SELECT grp, user_id, COUNT(*) AS n FROM clicks GROUP BY grp, user_id)
        GROUP BY grp) AS m
  ON g.grp = m.grp AND g.n >= m.maxn;
END;
