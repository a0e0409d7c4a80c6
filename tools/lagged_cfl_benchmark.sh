#!/usr/bin/env bash
# The lagged CFL limit (build "lag", margin 0.99) against the build before it ("sel"), one
# machine: .bench/quadflood-{sel,lag} built with --no-default-features --features mpi, run from
# the repository root with the Vulkan loader in .gl/ (docs/development.md).
set -u
. tools/bench_lib.sh
S=scenarios/circular-dam-break.toml
SET="--set domain.nx=4096 --set domain.ny=4096 --set domain.cell_size=0.0625 --set time.end=5 --set time.gauge_interval=1000 --set output.rasters=false"
summ() { python3 -c "import json;d=json.load(open('$1'));w=d['wall_clock_s'];print('steps',d['steps'],'planned_again',d.get('steps_planned_again'),'stepping_s',round(w['stepping'],3))"; }
for round in 1 2; do
  for b in sel lag; do
    B=./.bench/quadflood-$b
    rm -rf /tmp/o1; $B run $S $SET --adapter NVIDIA --out /tmp/o1 > $OUT/run1-$b.log 2>&1
    echo "$b r$round run 1 GPU to 5 s: $(summ /tmp/o1/summary.json)" | tee -a $R
    $B bench --n 4096 --steps 1000 --adapter NVIDIA --json /tmp/one.json > /dev/null 2>&1
    $B bench --n 4096 --ny 8192 --steps 1000 --adapter NVIDIA --json /tmp/one2.json > /dev/null 2>&1
    echo "$b r$round bench 1 GPU ms/step 4096x4096 $(ms /tmp/one.json) 4096x8192 $(ms /tmp/one2.json)" | tee -a $R
  done
done
for round in 1 2; do
  for b in sel lag; do
    B=./.bench/quadflood-$b
    $MPI -n 4 $B bench --n 4096 --steps 1000 --json /tmp/s16.json > /dev/null 2>&1
    echo "$b r$round strong 4 ranks 4096x4096: $(ms /tmp/s16.json) | $(waits /tmp/s16.json)" | tee -a $R
    $MPI -n 4 $B bench --n 4096 --ny 8192 --steps 1000 --json /tmp/s33.json > /dev/null 2>&1
    echo "$b r$round strong 4 ranks 4096x8192: $(ms /tmp/s33.json) | $(waits /tmp/s33.json)" | tee -a $R
    $MPI -n 4 $B bench --n 4096 --ny 16384 --steps 1000 --json /tmp/w4.json > /dev/null 2>&1
    echo "$b r$round weak 4 ranks 4096x16384: $(ms /tmp/w4.json) | $(waits /tmp/w4.json)" | tee -a $R
    cp /tmp/s16.json $OUT/s16-$b.json; cp /tmp/w4.json $OUT/w4-$b.json
  done
done
for b in sel lag; do
  B=./.bench/quadflood-$b
  $MPI -n 2 $B bench --n 4096 --ny 8192 --steps 1000 --json /tmp/w2.json > /dev/null 2>&1
  $MPI -n 2 $B bench --n 4096 --steps 1000 --json /tmp/s2.json > /dev/null 2>&1
  echo "$b 2 ranks weak 4096x8192: $(ms /tmp/w2.json) strong 4096x4096: $(ms /tmp/s2.json)" | tee -a $R
  rm -rf /tmp/o4; $MPI -n 4 $B run $S $SET --out /tmp/o4 > /dev/null 2>&1
  echo "$b run 4 ranks to 5 s: $(summ /tmp/o4/summary.json)" | tee -a $R
done
