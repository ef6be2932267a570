#!/usr/bin/env bash
# One test file on one engine, the fast inner loop:
#   npm run test:one -- tests/integration/tokens.test.ts [--engine sqlite|postgres] [node --test flags]
#   npm run test:one -- e2e/ui/sso.spec.ts [--engine postgres] [playwright flags]
# Unit and integration files run under Node's test runner with TEST_ENGINE (default sqlite); files
# that boot the built server, and e2e specs, get a build first when it is missing or stale.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=../tests/helpers/test-lib.sh
source tests/helpers/test-lib.sh

file="" engine=sqlite rest=()
while [ $# -gt 0 ]; do
  case $1 in
    --engine) engine=${2:?--engine needs sqlite or postgres}; shift 2 ;;
    --engine=*) engine=${1#--engine=}; shift ;;
    *) if [ -z "$file" ] && [ -f "$1" ]; then file=$1; else rest+=("$1"); fi; shift ;;
  esac
done
if [ -z "$file" ]; then
  echo "usage: npm run test:one -- <test file> [--engine sqlite|postgres] [extra flags]" >&2
  exit 2
fi
case $engine in sqlite | postgres) ;; *) echo "unknown engine: $engine (sqlite or postgres)" >&2; exit 2 ;; esac

needs_build() { [[ $file == e2e/* ]] || grep -q "helpers/fleet-server" "$file"; }
if needs_build && build_is_stale; then
  echo "== the build is missing or older than the sources: npm run build =="
  npm run build
fi

if [[ $file == e2e/* ]]; then
  e2e_database=""
  if [ "$engine" = postgres ]; then
    postgres_gate "e2e on PostgreSQL" || exit 1
    e2e_database=$(node tests/helpers/pg-tool.mjs create fleet_e2e)
    trap 'node tests/helpers/pg-tool.mjs drop "$e2e_database" || true' EXIT
  fi
  E2E_DATABASE_URL=$e2e_database npx playwright test "$file" "${rest[@]}"
else
  [ "$engine" = sqlite ] || postgres_gate "$file on PostgreSQL" || exit 1
  TEST_ENGINE=$engine exec node --import ./runtime/register-hooks.mjs --import tsx --test --test-reporter=spec \
    --test-timeout=300000 "${rest[@]}" "$file"
fi
