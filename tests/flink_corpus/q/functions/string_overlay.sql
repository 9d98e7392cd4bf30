-- Functions > String: OVERLAY ... PLACING ... FROM ... FOR
-- oracle: VALUES ('xxxAB')
SELECT OVERLAY('xxxxx' PLACING 'AB' FROM 4 FOR 2);
