#!/usr/bin/env bash
# Side by side: each build at 4096² and 1024², with and without the run's maxima, 3 rounds.
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for round in 1 2; do
  for n in 4096 1024; do
    for m in "--maxima" ""; do
      for b in ${BUILDS:-base head new}; do
        rm -f /tmp/b.json; ./.bench/quadflood-$b bench --n $n --steps 1000 $m --adapter NVIDIA --json /tmp/b.json > /tmp/log.txt 2>&1
        echo "$b n=$n ${m:-nomax} round=$round: $(grep -o '"cell_updates_per_s": [0-9.e+]*' /tmp/b.json)"
      done
    done
  done
done
