-- ARRAY_SORT needs elements with an order: an ARRAY of ARRAYs is refused
-- at plan time, naming the function and the type.
SELECT ARRAY_SORT(ARRAY[ARRAY[1], ARRAY[2]]);
