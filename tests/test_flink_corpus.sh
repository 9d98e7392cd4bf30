#!/usr/bin/env bash
# The Flink SQL corpus (tests/flink_corpus/): every query run through weir
# and classified (ran and checked against an SQLite oracle, refused naming
# the construct, or failed: a wrong answer, a crash, a generic message).
# Fails on a failure that known-failures.txt does not list.
# Usage: test_flink_corpus.sh WEIR_BINARY SOURCE_DIR
# WEIR_CORPUS_EVERY=K runs every K-th query (scripts/test.sh --sanitize).
set -u
exec python3 "$2/tests/flink_corpus/run.py" "$1" --families
