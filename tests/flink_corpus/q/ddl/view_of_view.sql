-- CREATE VIEW over another view
-- oracle: SELECT COUNT(*) FROM orders WHERE currency = 'EUR' AND amount > 1
CREATE VIEW eur AS SELECT * FROM orders WHERE currency = 'EUR';
CREATE VIEW eur_big AS SELECT * FROM eur WHERE amount > 1;
SELECT COUNT(*) FROM eur_big;
