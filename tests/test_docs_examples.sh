#!/usr/bin/env bash
# The examples of README.md and docs/*.md run against the weir command: SQL
# blocks planned, console sessions run and their output compared, quoted
# error messages reproduced (rules and markers: tests/docs_examples.py).
# WEIR_DOCS_FILES=REGEX checks a subset of the files.
# Usage: test_docs_examples.sh WEIR_BINARY SOURCE_DIR
set -u
exec python3 "$2/tests/docs_examples.py" "$1" "$2"
