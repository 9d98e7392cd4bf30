-- Functions > String: TO_BASE64, FROM_BASE64, ENCODE, DECODE
-- oracle: VALUES ('aGk=', 'hi', 'hi')
SELECT TO_BASE64('hi'), FROM_BASE64('aGk='), DECODE(ENCODE('hi', 'UTF-8'), 'UTF-8');
