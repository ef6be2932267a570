# Shell helpers for scripts/test-*.sh (sourced, not run).

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
  C_RED=$'\e[1;41;97m' C_YELLOW=$'\e[1;43;30m' C_GREEN=$'\e[1;32m' C_BOLD=$'\e[1m' C_OFF=$'\e[0m'
else
  C_RED="" C_YELLOW="" C_GREEN="" C_BOLD="" C_OFF=""
fi

# banner <colour> <line>...: a box nobody scrolls past.
banner() {
  local colour=$1 line
  shift
  local rule="################################################################################"
  printf '\n%s%s%s\n' "$colour" "$rule" "$C_OFF"
  for line in "$@"; do printf '%s##  %-74s##%s\n' "$colour" "$line" "$C_OFF"; done
  printf '%s%s%s\n\n' "$colour" "$rule" "$C_OFF"
}

# The PostgreSQL rule: returns 0 when PostgreSQL answers. When it does not, outside CI
# it warns loudly and returns 1 (the caller skips its PostgreSQL suite); with CI=true it is an
# error and the script exits.
postgres_gate() {
  local suite=$1 url reason
  # Shown in the banner, so without a password.
  url=$(printf '%s' "${TEST_DATABASE_URL:-postgresql://127.0.0.1:5432/test}" | sed -E 's#(://[^:/@]*):[^@]*@#\1:***@#')
  if reason=$(node tests/helpers/pg-tool.mjs check 2>&1); then return 0; fi
  if [ "${CI:-}" = "true" ]; then
    banner "$C_RED" "FAILED: PostgreSQL is not reachable and CI=true" "" "suite:  $suite" "url:    $url" "reason: ${reason:0:66}" "" \
      "On CI the PostgreSQL suites must run. Start PostgreSQL (.ci/run does)."
    exit 1
  fi
  banner "$C_YELLOW" "WARNING: THE POSTGRESQL SUITE WAS NOT RUN" "" "suite:  $suite" "url:    $url" "reason: ${reason:0:66}" "" \
    "Only SQLite was tested. Start PostgreSQL or set TEST_DATABASE_URL" "(with CI=true this is a failure)."
  return 1
}

# now: seconds since the epoch with microseconds.
now() { printf '%s' "${EPOCHREALTIME:-$(date +%s.%N)}"; }
# elapsed <start>: "12.3s"
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }

# node:test's closing counts ("ℹ tests 12" ...) from a log, as "12 tests, 12 passed, 0 failed[, N skipped]".
node_test_counts() {
  awk '/^ℹ (tests|pass|fail|skipped|todo|cancelled) [0-9]+$/ { n[$2] = $3 }
       END { s = sprintf("%d tests, %d passed, %d failed", n["tests"], n["pass"], n["fail"])
             if (n["skipped"]) s = s sprintf(", %d skipped", n["skipped"])
             if (n["todo"]) s = s sprintf(", %d todo (known bugs, reported not failed)", n["todo"])
             if (n["cancelled"]) s = s sprintf(", %d cancelled", n["cancelled"])
             print s }' "$1"
}

# Whether .next is missing or older than anything that goes into the build.
build_is_stale() {
  local build_id="${NEXT_DIST_DIR:-.next}/BUILD_ID"
  [ -f "$build_id" ] && [ -f "${NEXT_DIST_DIR:-.next}/fleet/server.mjs" ] || return 0
  local newer
  newer=$(find app components lib public next.config.ts postcss.config.mjs tsconfig.json package.json package-lock.json \
    server.ts agent-worker.ts scripts/build-server.mjs \
    -newer "$build_id" -type f -print -quit 2>/dev/null || true)
  [ -n "$newer" ]
}
