#!/usr/bin/env bash
# `npm test`: the whole suite, failing fast, in this order:
#   typecheck, lint, unit, integration (in-process, SQLite + PostgreSQL), build, system (the built
#   server, SQLite + PostgreSQL), e2e on SQLite, e2e on PostgreSQL.
# Typecheck, lint and unit run side by side, and so do integration and build (see PARALLEL_GROUPS).
#
#   bash scripts/test-all.sh                 everything
#   bash scripts/test-all.sh unit lint       only these stages (in the order above)
#   bash scripts/test-all.sh e2e             e2e on both engines (builds first if the build is missing or stale)
# Stages: typecheck lint unit integration build system e2e-sqlite e2e-postgres (e2e = both e2e stages).
#
# PostgreSQL (TEST_DATABASE_URL, default postgresql://127.0.0.1:5432/test): when it is not
# reachable, the PostgreSQL suites are skipped with a loud warning, unless CI=true: then that fails.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=../tests/helpers/test-lib.sh
source tests/helpers/test-lib.sh
export NEXT_TELEMETRY_DISABLED=1

ALL_STAGES=(typecheck lint unit integration build system e2e-sqlite e2e-postgres)

# --- which stages -------------------------------------------------------------------------
wanted=" "
for arg in "$@"; do
  case $arg in
    e2e) wanted+="e2e-sqlite e2e-postgres " ;;
    typecheck | lint | unit | integration | build | system | e2e-sqlite | e2e-postgres) wanted+="$arg " ;;
    *)
      echo "unknown stage: $arg (stages: ${ALL_STAGES[*]} e2e)" >&2
      exit 2
      ;;
  esac
done
stages=()
for s in "${ALL_STAGES[@]}"; do
  if [ $# -eq 0 ] || [[ $wanted == *" $s "* ]]; then stages+=("$s"); fi
done
# Stages that serve the build need one that matches the sources.
needs_build=false
for s in "${stages[@]}"; do [[ $s == e2e-* || $s == system ]] && needs_build=true; done
if $needs_build && [[ " ${stages[*]} " != *" build "* ]] && build_is_stale; then
  stages=(build "${stages[@]}")
fi

# --- PostgreSQL, checked once up front ------------------------------------------------------
postgres_ok=true
for s in "${stages[@]}"; do
  if [[ $s == integration || $s == system || $s == e2e-postgres ]]; then
    postgres_gate "integration, system and e2e tests on PostgreSQL" || postgres_ok=false
    break
  fi
done

# --- running ------------------------------------------------------------------------------
work=$(mktemp -d)
e2e_database=""
cleanup() {
  if [ -n "$e2e_database" ]; then node tests/helpers/pg-tool.mjs drop "$e2e_database" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
export TEST_SUMMARY_FILE="$work/summary"
: >"$TEST_SUMMARY_FILE"
results=()
passed=0
skipped=0
suite_start=$(now)

print_results() {
  printf '\n%sStage timings%s\n' "$C_BOLD" "$C_OFF"
  for line in "${results[@]}"; do printf '  %s\n' "$line"; done
  if [ -s "$TEST_SUMMARY_FILE" ]; then
    printf '%sTest counts%s\n' "$C_BOLD" "$C_OFF"
    sed 's/^/  /' "$TEST_SUMMARY_FILE"
  fi
}

# run_stage <name> <command...>: runs one stage, times it, stops everything on failure.
run_stage() {
  local name=$1 start rc
  shift
  printf '\n%s━━━ stage: %s ━━━%s  (%s)\n' "$C_BOLD" "$name" "$C_OFF" "$*"
  start=$(now)
  set +e
  "$@"
  rc=$?
  set -e
  if [ $rc -ne 0 ]; then
    results+=("$(printf '%-14s FAILED  %8s' "$name" "$(elapsed "$start")")")
    print_results
    banner "$C_RED" "FAILED at stage: $name   (exit code $rc, after $(elapsed "$start"))" "" \
      "Rerun just this stage: bash scripts/test-all.sh $name"
    exit 1
  fi
  results+=("$(printf '%-14s ok      %8s' "$name" "$(elapsed "$start")")")
  passed=$((passed + 1))
}

skip_stage() {
  results+=("$(printf '%-14s SKIPPED           %s' "$1" "$2")")
  skipped=$((skipped + 1))
}

# Debian packages some stages run: the e2e suites drive Chromium (nothing downloads a browser),
# the system tests put HAProxy in front of the server. Installed when this machine lacks them and we
# may (root with apt, as on a fresh machine and in CI); else we say how.
# ensure_debian <binary> <package>
ensure_debian() {
  [ -x "$1" ] && return 0
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "Debian $2 is missing: installing it (apt-get install $2)..."
    DEBIAN_FRONTEND=noninteractive apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2"
  else
    echo "Debian $2 is missing ($1): run 'sudo apt-get install -y $2' first." >&2
    return 1
  fi
}

# playwright_run <label>: the e2e suite against the server Playwright starts (see playwright.config.ts).
# Runs inside run_stage (errexit off there), so failures come back as the exit code.
playwright_run() {
  local label=$1 rc
  ensure_debian /usr/bin/chromium chromium || return 1
  npx playwright test 2>&1 | tee "$work/e2e-$label.log"
  rc=${PIPESTATUS[0]}
  local counts
  counts=$(grep -E '^\s+[0-9]+ (passed|failed|flaky|skipped|did not run|interrupted)' "$work/e2e-$label.log" |
    sed -E 's/^\s+//; s/ \(.*\)$//' | paste -sd, - | sed 's/,/, /g')
  # test.fail() tests (known bugs, see the specs) pass by failing; the list reporter marks them ✘.
  local expected_failures
  expected_failures=$(grep -cE '^\s+✘' "$work/e2e-$label.log" || true)
  # A flaky test's failed first attempt is marked ✘ too: those are not known bugs.
  local flaky
  flaky=$(grep -oE '^\s+[0-9]+ flaky' "$work/e2e-$label.log" | grep -oE '[0-9]+' || true)
  expected_failures=$((expected_failures - ${flaky:-0}))
  if [ "$rc" -eq 0 ] && [ "$expected_failures" -gt 0 ]; then
    counts="$counts (of which $expected_failures are known bugs marked test.fail)"
  fi
  echo "e2e $label: ${counts:-no result}" >>"$TEST_SUMMARY_FILE"
  return "$rc"
}

stage_e2e_postgres() {
  e2e_database=$(node tests/helpers/pg-tool.mjs create fleet_e2e)
  echo "fresh PostgreSQL database for e2e: $e2e_database"
  E2E_DATABASE_URL=$e2e_database playwright_run postgres
  local rc=$?
  # Proof the server really ran on PostgreSQL: the global setup's accounts are in this database.
  local users
  users=$(node tests/helpers/pg-tool.mjs scalar "$e2e_database" 'SELECT count(*) FROM "User"' 2>&1 || true)
  echo "users in the e2e PostgreSQL database: $users"
  if [ $rc -eq 0 ] && ! [[ $users =~ ^[0-9]+$ && $users -ge 3 ]]; then
    echo "The e2e server did not use the PostgreSQL database it was given (E2E_DATABASE_URL)." >&2
    rc=1
  fi
  node tests/helpers/pg-tool.mjs drop "$e2e_database" && e2e_database=""
  return $rc
}

# stage_command <stage>: the command of one stage (an array in $cmd).
stage_command() {
  case $1 in
    typecheck) cmd=(npx tsc --noEmit) ;;
    lint) cmd=(npm run lint --silent) ;;
    unit) cmd=(bash scripts/test-unit.sh) ;;
    build) cmd=(npm run build --silent) ;;
    integration | system)
      if $postgres_ok; then
        cmd=(bash scripts/test-integration.sh "tests/$1")
      else
        cmd=(env TEST_ENGINES=sqlite bash scripts/test-integration.sh "tests/$1")
        echo "$1 postgres: NOT RUN (PostgreSQL unreachable)" >>"$TEST_SUMMARY_FILE"
      fi
      ;;
  esac
}

# run_together <stage>...: stages that share nothing run side by side, each into its own log,
# shown whole once it ends: on two cores a type check beside a linter, or the build beside the
# in-process database tests (mostly waiting on the databases), finish sooner than one by one.
run_together() {
  local name i pids=() names=() starts=() rc took failed=""
  for name in "$@"; do
    stage_command "$name"
    printf '%s━━━ stage: %s ━━━%s  (%s, beside: %s)\n' "$C_BOLD" "$name" "$C_OFF" "${cmd[*]}" "$*"
    starts+=("$(now)")
    # Each records when it ended, so its time is its own, not its wait's.
    (
      "${cmd[@]}"
      rc=$?
      now >"$work/stage-$name.end"
      exit $rc
    ) >"$work/stage-$name.log" 2>&1 &
    pids+=($!)
    names+=("$name")
  done
  for i in "${!pids[@]}"; do
    name=${names[$i]}
    set +e
    wait "${pids[$i]}"
    rc=$?
    set -e
    printf '\n%s━━━ output of stage: %s ━━━%s\n' "$C_BOLD" "$name" "$C_OFF"
    cat "$work/stage-$name.log"
    took=$(awk -v a="${starts[$i]}" -v b="$(cat "$work/stage-$name.end" 2>/dev/null || now)" 'BEGIN { printf "%.1fs", b - a }')
    if [ $rc -ne 0 ]; then
      results+=("$(printf '%-14s FAILED  %8s' "$name" "$took")")
      failed="$failed $name"
    else
      results+=("$(printf '%-14s ok      %8s' "$name" "$took")")
      passed=$((passed + 1))
    fi
  done
  if [ -n "$failed" ]; then
    print_results
    banner "$C_RED" "FAILED at stage(s):$failed" "" "Rerun just that stage: bash scripts/test-all.sh <stage>"
    exit 1
  fi
}

# Which stages run side by side; anything else runs alone, in order.
PARALLEL_GROUPS=("typecheck lint unit" "integration build")
i=0
while [ $i -lt ${#stages[@]} ]; do
  stage=${stages[$i]}
  group=()
  for g in "${PARALLEL_GROUPS[@]}"; do
    if [[ " $g " == *" $stage "* ]]; then
      for s in "${stages[@]:$i}"; do [[ " $g " == *" $s "* ]] && group+=("$s"); done
      break
    fi
  done
  if [ ${#group[@]} -gt 1 ]; then
    run_together "${group[@]}"
    i=$((i + ${#group[@]}))
    continue
  fi
  case $stage in
    typecheck | lint | unit | build | integration | system)
      # tests/system/engine-free/haproxy-edge.test.ts runs Debian's HAProxy.
      if [ "$stage" = system ]; then ensure_debian /usr/sbin/haproxy haproxy || exit 1; fi
      stage_command "$stage"
      run_stage "$stage" "${cmd[@]}"
      ;;
    e2e-sqlite) E2E_DATABASE_URL="" run_stage e2e-sqlite playwright_run sqlite ;;
    e2e-postgres)
      if $postgres_ok; then
        run_stage e2e-postgres stage_e2e_postgres
      else
        skip_stage e2e-postgres "(PostgreSQL unreachable)"
        echo "e2e postgres: NOT RUN (PostgreSQL unreachable)" >>"$TEST_SUMMARY_FILE"
      fi
      ;;
  esac
  i=$((i + 1))
done

print_results
if ! $postgres_ok; then
  banner "$C_YELLOW" "WARNING: THE POSTGRESQL SUITES WERE NOT RUN (PostgreSQL unreachable)" "" \
    "Everything above passed on SQLite only."
fi
if [ "$skipped" -eq 0 ]; then
  printf '%sALL GREEN%s: %d stages passed in %s (%s)\n' "$C_GREEN" "$C_OFF" "$passed" "$(elapsed "$suite_start")" "${stages[*]}"
else
  printf '%sGREEN, BUT %d STAGE(S) SKIPPED%s: %d passed in %s (%s)\n' "$C_YELLOW" "$skipped" "$C_OFF" "$passed" \
    "$(elapsed "$suite_start")" "${stages[*]}"
fi
