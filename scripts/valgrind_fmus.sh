#!/usr/bin/env bash
# valgrind_fmus.sh -- valgrind memcheck over N instantiate -> setup -> initialize ->
# doStep x STEPS -> (FMU state round trip, reset + re-init every 4th cycle) -> terminate
# -> free cycles of example FMUs (issue #8 part 3; CI-optional, needs valgrind + gcc).
#
#   scripts/valgrind_fmus.sh [N=10000] [WORK_DIR=<temp dir>]
#
# Environment:
#   WEARCOSIM_VG_MODELS  Modelica classes to build (default: BouncingBall and
#                        HybridMechanism.DrySpeed32pi)
#   WEARCOSIM_VG_FMUS    space-separated .fmu files to use instead of building
#   WEARCOSIM_VG_STEPS   doSteps per cycle (default 3, step = stopTime/50)
#   PYTHON               interpreter with wearcosim installed (default python3)
#
# Reports leaks and invalid reads/writes; exits 1 on any valgrind error (definite or
# indirect leaks count as errors), 2 if an FMI call failed, 3 on setup problems.
set -euo pipefail

N="${1:-10000}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${2:-$(mktemp -d -t wearcosim-vg-XXXXXX)}"
PY="${PYTHON:-python3}"
STEPS="${WEARCOSIM_VG_STEPS:-3}"
MODELS="${WEARCOSIM_VG_MODELS:-WearCosim.Examples.Basic.BouncingBall WearCosim.Examples.HybridMechanism.DrySpeed32pi}"
mkdir -p "$WORK"

command -v valgrind >/dev/null || { echo "valgrind_fmus.sh: valgrind not found" >&2; exit 3; }
command -v gcc >/dev/null || { echo "valgrind_fmus.sh: gcc not found" >&2; exit 3; }

# 1. the C driver (no Python under valgrind)
DRIVER="$WORK/fmu_cycle_driver"
gcc -O1 -g -Wall -Wextra -I "$ROOT/fmu/runtime/include" "$ROOT/scripts/fmu_cycle_driver.c" \
    -ldl -o "$DRIVER"

# 2. the FMUs (built with the project's API unless given)
if [ -n "${WEARCOSIM_VG_FMUS:-}" ]; then
    FMUS="$WEARCOSIM_VG_FMUS"
else
    FMUS="$("$PY" - "$ROOT" "$WORK/fmus" $MODELS <<'EOF'
import sys
from pathlib import Path
from wearcosim.export.build import build_fmu
root, out = Path(sys.argv[1]), Path(sys.argv[2])
print(" ".join(str(build_fmu(m, root / "modelica" / "WearCosim", out).fmu)
               for m in sys.argv[3:]))
EOF
)"
fi

# 3. valgrind per FMU
status=0
for fmu in $FMUS; do
    name="$(basename "$fmu" .fmu)"
    dir="$WORK/unzipped/$name"
    rm -rf "$dir"; mkdir -p "$dir"
    "$PY" -c "import zipfile,sys; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" "$fmu" "$dir"
    read -r ident guid step < <("$PY" - "$dir/modelDescription.xml" <<'EOF'
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
stop = float(r.find("DefaultExperiment").get("stopTime", "1"))
print(r.find("CoSimulation").get("modelIdentifier"), r.get("guid"), repr(stop / 50))
EOF
)
    log="$WORK/valgrind-$name.log"
    echo "== $name: $N cycles x $STEPS steps of $step s under valgrind memcheck (log: $log)"
    t0=$(date +%s%N)
    set +e
    valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        --show-leak-kinds=definite,indirect --track-origins=yes --log-file="$log" \
        "$DRIVER" "$dir/binaries/linux64/$ident.so" "$guid" "$N" "$STEPS" "$step"
    rc=$?
    set -e
    t1=$(date +%s%N)
    errs="$(grep -Eo 'ERROR SUMMARY: [0-9]+ errors' "$log" | tail -1 || true)"
    leaks="$(grep -E 'definitely lost:|indirectly lost:|Invalid (read|write)' "$log" | sed 's/^==[0-9]*== *//' | sort | uniq -c | tr '\n' ';' || true)"
    printf '   %s, rc=%d, %.1f s; %s\n' "${errs:-no summary}" "$rc" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print (b-a)/1e9}')" "${leaks:-no leaks reported}"
    if [ "$rc" -ne 0 ]; then
        echo "   FAILED: see $log" >&2
        grep -E '^==[0-9]+== (Invalid|.*lost|.*uninitialised|   (at|by) )' "$log" | head -40 >&2 || true
        status=$rc
    fi
done
exit $status
