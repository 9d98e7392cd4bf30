#!/usr/bin/env bash
# tests/test_strfn_diff.sh WEIR SOURCE_DIR - randomized differential test of
# the string, URL, encoding and hash functions (OVERLAY, TRANSLATE,
# SUBSTRING_INDEX, ELT, CHR, IS_*, URL_ENCODE/DECODE, PARSE_URL, STR_TO_MAP,
# ENCODE/DECODE, HEX, BIN, UNHEX, MD5, SHA*) against Python models
# (tests/strfn_diff.py: hashlib, urllib.parse, codecs, unicodedata).
# Bounded: WEIR_STRFNDIFF_JOBS jobs (default 12; 3 under ASan). The seed is
# printed; WEIR_SEED=S replays a run, WEIR_STRFNDIFF_JOB=i one job of it.
# Failing cases go to WEIR_STRFNDIFF_OUT (default ./strfn_diff_failures).
exec python3 "$2/tests/strfn_diff.py" --weir "$1" --out "${WEIR_STRFNDIFF_OUT:-$PWD/strfn_diff_failures}"
