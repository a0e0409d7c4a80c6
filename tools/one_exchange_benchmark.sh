#!/usr/bin/env bash
# The ranked step with one exchange ("onex") against the step with two ("old", main before
# it), side by side on one 4-GPU machine: one GPU (the one-rank step must not change), then
# strong and weak scaling on 4 ranks, two rounds (three for the smallest grid), alternating
# builds; 2 ranks for the scaling model; 1/4/16 ranks write the same bytes; the balancing
# comparison. Run from the repository root with .bench/quadflood-{old,onex} built with
# --no-default-features --features mpi and the Vulkan loader in .gl/ (docs/development.md);
# OUT is where the results go. OLD and NEW name other builds in .bench; SCALING_ONLY=1 stops
# after the 4-rank runs (the merged stage-1 dispatch was measured with OLD=onex NEW=merge1).
set -u
. tools/bench_lib.sh
OLD=${OLD:-old}
NEW=${NEW:-onex}
for round in 1 2; do
  for b in $OLD $NEW; do
    ./.bench/quadflood-$b bench --n 4096 --steps 1000 --adapter NVIDIA --json /tmp/one.json > /dev/null 2>&1
    echo "$b r$round 1 GPU 4096x4096: $(ms /tmp/one.json)" | tee -a $R
  done
done
for round in 1 2 3; do
  for b in $OLD $NEW; do
    B=./.bench/quadflood-$b
    for ny in 4096 8192 16384; do
      [ $round = 3 ] && [ $ny != 4096 ] && continue
      $MPI -n 4 $B bench --n 4096 --ny $ny --steps 1000 --json /tmp/f.json > /dev/null 2>&1
      echo "$b r$round 4 ranks 4096x$ny: $(ms /tmp/f.json) | $(waits /tmp/f.json)" | tee -a $R
      [ $round = 2 ] && [ $ny != 8192 ] && cp /tmp/f.json $OUT/four-$b-$ny.json
    done
  done
done
[ "${SCALING_ONLY:-0}" = 1 ] && exit 0
for ny in 4096 8192; do
  $MPI -n 2 ./.bench/quadflood-$NEW bench --n 4096 --ny $ny --steps 1000 --json /tmp/t2.json > /dev/null 2>&1
  echo "$NEW 2 ranks 4096x$ny: $(ms /tmp/t2.json) | $(waits /tmp/t2.json)" | tee -a $R
  cp /tmp/t2.json $OUT/two-$NEW-$ny.json
done
B=$PWD/.bench/quadflood-$NEW
S=$PWD/scenarios/wall-dam-break.toml
$B run $S --set time.end=20 --adapter NVIDIA --out /tmp/r1 > /dev/null 2>&1; echo "1 rank exit $?" | tee -a $R
for n in 4 16; do
  $MPI --oversubscribe -n $n $B run $S --set time.end=20 --out /tmp/r$n > /dev/null 2>&1; echo "$n ranks exit $?" | tee -a $R
  same=0; diff=0
  for f in $(cd /tmp/r1 && ls); do
    case $f in summary.json|run.log) continue;; esac
    if cmp -s /tmp/r1/$f /tmp/r$n/$f; then same=$((same+1)); else diff=$((diff+1)); echo "differs: $f" | tee -a $R; fi
  done
  echo "$n ranks: $same files identical to 1 rank's, $diff differ" | tee -a $R
done
# Load balancing with the new step: static, idle rule and cost rule on the wall dam break.
MPIRUN_FLAGS="-x XDG_RUNTIME_DIR --bind-to none" XDG_RUNTIME_DIR=/tmp timeout 240 \
  tools/balance_benchmark.sh ./.bench/quadflood-$NEW 4 /tmp/bal > $OUT/balance.md 2> $OUT/balance.err
