-- Queries > Pattern Recognition: MATCH_RECOGNIZE over a view
-- oracle: VALUES (12, 17), (13, 16), (2, 30)
CREATE VIEW acme AS SELECT * FROM ticker WHERE symbol = 'ACME';
SELECT * FROM acme MATCH_RECOGNIZE (
  ORDER BY rowtime MEASURES A.price AS a, B.price AS b
  PATTERN (A B) DEFINE B AS B.price > A.price) AS T;
