#!/usr/bin/env bash
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
B=$PWD/.bench/quadflood-sel
S=$PWD/scenarios/circular-dam-break.toml
SET="--set domain.nx=1024 --set domain.ny=1024 --set domain.cell_size=0.25"
MPI="mpirun --allow-run-as-root --bind-to none --oversubscribe"
for n in 1 2 8; do
  /usr/bin/time -f "n=$n wall %e s" $MPI -n $n $B run $S $SET --out /tmp/r$n > $OUT/log$n.txt 2>&1
  tail -1 $OUT/log$n.txt
  cp /tmp/r$n/summary.json $OUT/summary$n.json
done
/usr/bin/time -f "n=8 no maps wall %e s" $MPI -n 8 $B run $S $SET --set output.rasters=false --out /tmp/r8b > $OUT/log8b.txt 2>&1; tail -1 $OUT/log8b.txt; cp /tmp/r8b/summary.json $OUT/summary8b.json
