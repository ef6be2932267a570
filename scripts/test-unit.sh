#!/usr/bin/env bash
# Unit tests: every tests/unit/**/*.test.ts with Node's test runner: no database, no server, no child
# processes, no TLS (those live in tests/integration, engine-free ones in tests/integration/engine-free).
# Extra arguments go to `node --test` (e.g. --test-name-pattern=csr).
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t files < <(find tests/unit -type f -name '*.test.ts' 2>/dev/null | sort)
if [ ${#files[@]} -eq 0 ]; then
  echo "No unit tests under tests/unit."
  exit 0
fi
exec node --import ./runtime/register-hooks.mjs --import tsx --test --test-reporter=spec --test-timeout=120000 "$@" "${files[@]}"
