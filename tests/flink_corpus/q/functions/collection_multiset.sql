-- Functions > Collection: MULTISET constructor and MEMBER OF
SELECT 'a' MEMBER OF MULTISET['a', 'b'];
