#!/usr/bin/env bash
# Tests of the wearcosim FMI 2.0 runtime (fmu/runtime/: the core and the FMI 2.0 face) on its own.
#
#   fmu/runtime/tests/run_tests.sh [--valgrind] [--no-fmpy] [--sanitize]
#
# 1. builds every test model (tests/models/*) into a shared library with the same
#    command line the exporter uses, plus -Wall -Wextra -Werror -std=c99 -pedantic
#    (warnings are errors);
# 2. builds and runs test_solvers (solver layer alone) and test_fmu (each model
#    through dlopen + the standard fmi2 API);
# 3. runs fmpy_check.py (ME with CVode + CS via FMPy) with $PYTHON (default python3) if it has fmpy;
# 4. --valgrind: runs the C tests again under valgrind memcheck (leaks = failure);
#    --sanitize: builds with -fsanitize=address,undefined instead of -O2.
# Prints a final line "N passed, M failed"; exit code != 0 on any failure.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RT="$(dirname "$HERE")"
BUILD="${BUILD_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/wcs_rt_tests.XXXXXX")}"
VALGRIND=0; FMPY=1; SAN=0
for a in "$@"; do
  case "$a" in
    --valgrind) VALGRIND=1 ;;
    --no-fmpy) FMPY=0 ;;
    --sanitize) SAN=1 ;;
    *) echo "unknown option $a"; exit 2 ;;
  esac
done
CC="${CC:-gcc}"
WARN="-std=c99 -pedantic -Wall -Wextra -Werror"
OPT="-O2"
if [ "$SAN" = 1 ]; then OPT="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"; fi
[ "$VALGRIND" = 1 ] && OPT="$OPT -g"

PASSED=0; FAILED=0
fail() { echo "FAIL $*"; FAILED=$((FAILED + 1)); }
# add the counts of a "RESULT passed=N failed=M" line; no such line = 1 failure
collect() {
  local out="$1" rc="$2" name="$3" line p f
  line="$(grep -E '^RESULT passed=[0-9]+ failed=[0-9]+' "$out" | tail -1)"
  if [ -z "$line" ]; then fail "$name (crashed or no result, exit code $rc)"; return; fi
  p="$(echo "$line" | sed -E 's/.*passed=([0-9]+).*/\1/')"
  f="$(echo "$line" | sed -E 's/.*failed=([0-9]+).*/\1/')"
  PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then fail "$name (exit code $rc)"; fi
}

echo "== build (in $BUILD)"
# the core and the FMI 2.0 face: every runtime unit but the other faces (an FMU carries one
# face; fmi3_face.c needs the exporter's generated fmi3_table.h and is tested through
# tests/export/test_fmi3.py)
RT_UNITS=()
for f in "$RT"/*.c; do
  case "$(basename "$f")" in fmi3_face.c) ;; *) RT_UNITS+=("$f") ;; esac
done
for m in "$HERE"/models/*/; do
  name="$(basename "$m")"
  # the exporter's command line (see fmi2_face.c; the solvers compiled for the model's
  # number of states, as package.compile_binary does) + warning flags
  nx="$(sed -nE 's/^[[:space:]]*#[[:space:]]*define[[:space:]]+N_X[[:space:]]+([0-9]+).*/\1/p' "$m/config.h" | head -1)"
  fixed=""; [ -n "$nx" ] && [ "$nx" -gt 0 ] && fixed="-DRT_ODE_FIXED_N=$nx"
  if ! $CC -shared -fPIC $OPT $WARN $fixed -I "$RT" -I "$RT/include" -I "$m" \
        "$m/model.c" "${RT_UNITS[@]}" -lm -o "$BUILD/$name.so"; then
    fail "build_$name"
  fi
done
$CC $OPT $WARN -I "$RT" "$HERE/test_solvers.c" "$RT/rt_ode.c" "$RT/rt_dopri5.c" \
    "$RT/rt_rodas4.c" "$RT/rt_auto.c" "$RT/rt_adams.c" "$RT/rt_linalg.c" -lm -o "$BUILD/test_solvers" || fail build_test_solvers
$CC $OPT $WARN -D_POSIX_C_SOURCE=200809L -I "$RT/include" "$HERE/test_fmu.c" -ldl -lm \
    -o "$BUILD/test_fmu" || fail build_test_fmu

run() {  # run <name> <cmd...>
  local name="$1"; shift
  local out="$BUILD/$name.out"
  echo "== $name"
  "$@" > "$out" 2>&1
  local rc=$?
  grep -E '^(PASS|FAIL|SKIP)' "$out" | sed 's/^/  /'
  grep -E '^FAIL' "$out" >/dev/null || true
  collect "$out" "$rc" "$name"
}

[ -x "$BUILD/test_solvers" ] && run solvers "$BUILD/test_solvers"
if [ -x "$BUILD/test_fmu" ]; then
  for m in bball decay vdp nlloop chatter; do
    [ -f "$BUILD/$m.so" ] && run "fmu_$m" "$BUILD/test_fmu" "$m" "$BUILD/$m.so"
  done
fi

if [ "$FMPY" = 1 ] && [ "$SAN" = 0 ]; then
  # $PYTHON: the interpreter with FMPy (the test suite passes its own; a virtual environment's
  # python is not the python3 on PATH)
  PY="${PYTHON:-python3}"
  if "$PY" -c "import fmpy" >/dev/null 2>&1; then
    run fmpy "$PY" "$HERE/fmpy_check.py"
  else
    echo "== fmpy: not installed, skipped"
  fi
fi

if [ "$VALGRIND" = 1 ]; then
  VG="valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 -q"
  run valgrind_solvers $VG "$BUILD/test_solvers"
  for m in bball decay nlloop vdp chatter; do
    run "valgrind_fmu_$m" $VG "$BUILD/test_fmu" "$m" "$BUILD/$m.so"
  done
fi

[ -z "${BUILD_DIR:-}" ] && rm -rf "$BUILD"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
