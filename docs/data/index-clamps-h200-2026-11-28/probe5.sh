#!/usr/bin/env bash
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bench() { local name=$1; shift
  rm -f /tmp/b.json; env "$@" bench --n ${N:-4096} --steps 1000 ${M---maxima} --adapter NVIDIA --json /tmp/b.json > /tmp/log.txt 2>&1
  echo "$name n=${N:-4096} ${M---maxima}: $(grep -o '"cell_updates_per_s": [0-9.e+]*' /tmp/b.json)"; }
for round in 1 2; do
  for N in 4096 1024; do for M in --maxima " "; do
    for b in base clamps final; do bench $b ./.bench/quadflood-$b; done
  done; done
done
