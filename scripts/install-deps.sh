#!/usr/bin/env bash
# Installs the Debian 12 packages weir builds and tests with. Idempotent:
# packages already present are left alone, and apt is only asked when one is
# missing. Run as root (or with sudo available).
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  libxxhash-dev          # key hashing
  librocksdb-dev         # RocksDB state backend
  libcriterion-dev       # unit tests
  libcjson-dev           # benchmark baseline for the JSON decoder
  libcsv-dev             # benchmark baseline for the CSV decoder
  clang libclang-rt-14-dev  # fuzzers (libFuzzer)
  python3                # test helpers (tests/sql_diff.py: its sqlite3 module is the oracle)
  librdkafka-dev kcat    # Kafka connectors; kcat produces and consumes in the tests
  curl                   # the tests read the REST endpoint and /metrics
  libpq-dev              # PostgreSQL connectors
  postgresql-15 postgresql-client-15  # a real server the tests start and stop
  libmicrohttpd-dev      # the REST endpoint, /metrics and the web UI
  python3-prometheus-client  # parses /metrics in the tests
  python3-mpmath         # exact values of the math functions (tests/math_diff.py)
  libyaml-dev            # weir run --config FILE
  libpcre2-dev           # regular expressions with Java's semantics
  libcurl4-openssl-dev   # object storage (S3 API, SigV4)
  libssl-dev             # libcrypto: SigV4 and the SQL hash functions (MD5, SHA2, ...)
  libnats-dev nats-server  # NATS JetStream connectors and their test server
  chromium               # the web UI's end-to-end test (headless)
  locales                # test_locale compiles a locale with ',' for the decimal point
)

# npm packages the tests run, installed project-local into tests/node
# (package.json and package-lock.json pin them; node_modules is ignored).
install_node_tools() {
  local root
  root=$(cd "$(dirname "$0")/.." && pwd)
  if [ ! -x "$root/tests/node/node_modules/.bin/s3rver" ]; then
    echo "install-deps: npm ci in tests/node (s3rver)"
    (cd "$root/tests/node" && npm ci --no-audit --no-fund)
  fi
}

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm run s3rver, the S3-compatible server the object-storage
# tests start. A machine may already have them from another source (whose
# nodejs package conflicts with Debian's npm): only a machine without npm
# gets Debian's.
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  install_node_tools
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
install_node_tools
