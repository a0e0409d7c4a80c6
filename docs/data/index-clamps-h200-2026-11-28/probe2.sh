#!/usr/bin/env bash
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for b in base new; do echo "== profile $b"; ./.bench/quadflood-$b bench --n 4096 --steps 500 --maxima --profile --adapter NVIDIA 2>&1 | sed -n '/GPU time per step/,$p'; done
echo "== profile new, checks off"; QUADFLOOD_SHADER_CHECKS=off ./.bench/quadflood-new bench --n 4096 --steps 500 --maxima --profile --adapter NVIDIA 2>&1 | sed -n '/GPU time per step/,$p'
bench() { local name=$1; shift
  rm -f /tmp/b.json; env "$@" bench --n ${N:-4096} --steps 1000 --maxima --adapter NVIDIA --json /tmp/b.json > /tmp/log.txt 2>&1
  echo "$name: $(grep -o '"cell_updates_per_s": [0-9.e+]*' /tmp/b.json)"; }
for round in 1 2; do
  bench base ./.bench/quadflood-base
  for c in all loops bounds int-div loops,int-div off; do bench "checks-drop-$c" QUADFLOOD_SHADER_CHECKS=$c ./.bench/quadflood-new; done
done
