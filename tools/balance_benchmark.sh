#!/usr/bin/env bash
# The load-balancing comparison of docs/benchmarks-history.md: each case on P GPUs (default 4)
# with a static partition, the source documents' idle rule and our cost rule; prints a
# Markdown table of time to solution, loop time per step, moves and their cost.
#
#   tools/balance_benchmark.sh [QUADFLOOD_BINARY] [RANKS] [OUT_DIR]
#
# The wall dam break is scaled to 0.1 m cells (8.3 M domain cells, 1.8 M stored on 3
# levels; the documents' case has ~6.5 M; override WALL_SCALE="--set ..." to change it),
# the corner wave to 1 M cells (CORNER_SCALE). MPIRUN_FLAGS goes to mpirun. A first run,
# not counted, warms the machine (on a fresh 4-GPU machine the first run took twice as long
# as the same run later); REPEATS=N runs the three partitions of each case N times in turn
# (default 1), and the table gives each run.
set -euo pipefail
bin=${1:-target/release/quadflood}
ranks=${2:-4}
out=${3:-balance-benchmark}
here=$(cd "$(dirname "$0")/.." && pwd)
wall_scale=${WALL_SCALE:---set domain.cell_size=0.1 --set domain.nx=4000 --set domain.ny=2080}
corner_scale=${CORNER_SCALE:---set domain.cell_size=0.4 --set domain.nx=1000 --set domain.ny=1000}
quiet="--set output.rasters=false --set output.png=false --set output.maxima=false"
mkdir -p "$out"
run() { # case scale mode extra...
    local case=$1 scale=$2 mode=$3; shift 3
    # shellcheck disable=SC2086
    mpirun --allow-run-as-root ${MPIRUN_FLAGS:-} -n "$ranks" "$bin" run "$here/scenarios/$case.toml" \
        --out "$out/$case-$mode" --quiet $scale $quiet "$@"
}
run corner-wave "$corner_scale" warm-up --set load_balancing.enabled=false
for k in $(seq 1 "${REPEATS:-1}"); do
    for case in wall-dam-break corner-wave; do
        scale=$wall_scale
        [ "$case" = corner-wave ] && scale=$corner_scale
        run "$case" "$scale" "static-$k" --set load_balancing.enabled=false
        run "$case" "$scale" "idle-$k" --set load_balancing.rule=idle
        run "$case" "$scale" "cost-$k" --set load_balancing.rule=cost
    done
done
python3 - "$out" "${REPEATS:-1}" <<'PY'
import json, sys, os
out, repeats = sys.argv[1], int(sys.argv[2])
print("| case | partition | cells | steps | time to solution (s) | loop per step (ms) | moves | blocks moved | time in moves (s) | vs static |")
print("|---|---|---|---|---|---|---|---|---|---|")
for case in ["wall-dam-break", "corner-wave"]:
    for k in range(1, repeats + 1):
        static = None  # each round against its own static run
        for mode in ["static", "idle", "cost"]:
            s = json.load(open(os.path.join(out, f"{case}-{mode}-{k}", "summary.json")))
            log = s.get("rebalancing", [])
            wall = s["wall_s"]
            static = static or wall
            print(f"| {case} | {mode} | {s['cells']} | {s['steps']} | {wall:.2f} | {1e3 * wall / s['steps']:.3f} "
                  f"| {len(log)} | {sum(e['blocks_moved'] for e in log)} | {sum(e['seconds'] for e in log):.3f} "
                  f"| {100 * (wall / static - 1):+.1f}% |")
PY
