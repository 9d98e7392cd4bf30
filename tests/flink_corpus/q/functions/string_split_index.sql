-- Functions > String: SPLIT_INDEX, STR_TO_MAP
-- oracle: VALUES ('b', 'v1')
SELECT SPLIT_INDEX('a,b,c', ',', 1), STR_TO_MAP('k1=v1,k2=v2')['k1'];
