-- Functions > String: LPAD, RPAD, REPEAT, REVERSE, INITCAP
-- oracle: VALUES ('**ab', 'ab**', 'xyxy', 'cba', 'Hello World')
SELECT LPAD('ab', 4, '*'), RPAD('ab', 4, '*'), REPEAT('xy', 2), REVERSE('abc'), INITCAP('hello world');
