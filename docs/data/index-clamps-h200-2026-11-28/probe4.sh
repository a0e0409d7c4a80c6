#!/usr/bin/env bash
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== kernel_stats cur (checks off)"; QUADFLOOD_SHADER_CHECKS=off ./.bench/kernel_stats NVIDIA stage1 stage2 2>&1 | grep -E "^stage|Register"
for v in late_start late_own late_both; do echo "== kernel_stats $v (checks off)"; QUADFLOOD_SHADER_CHECKS=off QUADFLOOD_SOLVER_WGSL=.bench/var/$v.wgsl ./.bench/kernel_stats NVIDIA stage1 stage2 2>&1 | grep -E "^stage|Register"; done
bench() { local name=$1; shift
  rm -f /tmp/b.json; env "$@" bench --n ${N:-4096} --steps 1000 --maxima --adapter NVIDIA --json /tmp/b.json > /tmp/log.txt 2>&1
  echo "$name: $(grep -o '"cell_updates_per_s": [0-9.e+]*' /tmp/b.json)"; }
for round in 1 2; do
  bench base ./.bench/quadflood-base
  bench new ./.bench/quadflood-new
  for v in late_start late_own late_both; do bench "var-$v" QUADFLOOD_SOLVER_WGSL=.bench/var/$v.wgsl ./.bench/quadflood-new; done
  bench "var-late_both-rows16" QUADFLOOD_REGULAR_ROWS=16 QUADFLOOD_SOLVER_WGSL=.bench/var/late_both.wgsl ./.bench/quadflood-new
done
