-- Functions > String: PARSE_URL, URL_ENCODE, URL_DECODE
-- oracle: VALUES ('example.com', 'a=1', 'a%3Db', 'a=b')
SELECT PARSE_URL('http://example.com/p?a=1', 'HOST'), PARSE_URL('http://example.com/p?a=1', 'QUERY'), URL_ENCODE('a=b'), URL_DECODE('a%3Db');
