-- The leading field of a multi-field literal is checked too, with the sign
-- of the string in the message (Flink: "Interval field value -120 exceeds
-- precision of HOUR(2) field"); trailing fields keep their ranges.
SELECT INTERVAL '-120:30' HOUR TO MINUTE;
