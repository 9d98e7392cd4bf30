-- Functions > Collection: MULTISET constructor and MEMBER OF
-- flink-refuses
SELECT 'a' MEMBER OF MULTISET['a', 'b'];
