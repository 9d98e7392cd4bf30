-- CREATE FUNCTION ... AS 'java.class' (a JVM class; weir runs C functions)
CREATE TEMPORARY FUNCTION my_upper AS 'com.example.udf.MyUpper';
SELECT my_upper(name) FROM customers;
