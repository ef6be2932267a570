#!/usr/bin/env bash
# Tests on real databases, every *.test.ts of one folder, once with TEST_ENGINE=sqlite (temp files)
# and once with TEST_ENGINE=postgres (a fresh database per test file on TEST_DATABASE_URL's server,
# default postgresql://127.0.0.1:5432/test):
#   bash scripts/test-integration.sh                  tests/integration: in-process, no build needed
#   bash scripts/test-integration.sh tests/system     tests/system: they start the built server
#   TEST_ENGINES="sqlite"   run one engine only (default "sqlite postgres")
#   TEST_SUMMARY_FILE=f     append "<suite> <engine>: <counts>" lines to f (used by test-all.sh)
# PostgreSQL unreachable: a loud warning and the PostgreSQL run is skipped; with CI=true, a failure.
# Extra arguments go to `node --test`.
# An engine-free/ subfolder holds tests that spawn processes or speak TLS but use no database (unit
# tests are kept free of both): they run once, with the first engine of the list.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=../tests/helpers/test-lib.sh
source tests/helpers/test-lib.sh

folder=tests/integration
if [[ ${1:-} == tests/* ]]; then
  folder=${1%/}
  shift
fi
suite=$(basename "$folder")
mapfile -t files < <(find "$folder" -type f -name '*.test.ts' 2>/dev/null | sort)
if [ ${#files[@]} -eq 0 ]; then
  echo "No tests under $folder."
  exit 0
fi

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
summary=()
status=0
for engine in ${TEST_ENGINES:-sqlite postgres}; do
  case $engine in
    sqlite) ;;
    postgres)
      if ! postgres_gate "$suite tests (TEST_ENGINE=postgres)"; then
        summary+=("$suite postgres: NOT RUN (PostgreSQL unreachable)")
        continue
      fi
      ;;
    *) echo "unknown engine in TEST_ENGINES: $engine" >&2; exit 2 ;;
  esac
  if [ -z "${engine_free_done:-}" ]; then
    run=("${files[@]}")
    engine_free_done=1
  else
    run=()
    for f in "${files[@]}"; do [[ $f == "$folder"/engine-free/* ]] || run+=("$f"); done
  fi
  printf '\n%s== %s tests on %s (%d files) ==%s\n' "$C_BOLD" "$suite" "$engine" "${#run[@]}" "$C_OFF"
  start=$(now)
  set +e
  # Files run 3 at a time: most of their time is spent waiting on servers and timers, not CPU.
  # The timeout also bounds each file's whole run (one process per file): the fault drills take
  # ~1 min alone on a quiet machine and reached 3 min beside other work, so files get 5.
  TEST_ENGINE=$engine node --import ./runtime/register-hooks.mjs --import tsx --test --test-reporter=spec --test-concurrency=3 \
    --test-timeout=300000 "$@" "${run[@]}" 2>&1 | tee "$logs/$engine.log"
  rc=${PIPESTATUS[0]}
  set -e
  line="$suite $engine: $(node_test_counts "$logs/$engine.log") in $(elapsed "$start")"
  [ "$rc" -eq 0 ] || { line="$line  <-- FAILED"; status=1; }
  summary+=("$line")
done

printf '\n'
for line in "${summary[@]}"; do
  echo "$line"
  [ -z "${TEST_SUMMARY_FILE:-}" ] || echo "$line" >>"$TEST_SUMMARY_FILE"
done
exit $status
