#!/usr/bin/env bash
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp
for round in 1 2 3; do
  for n in 4096 1024; do
    for b in ${BUILDS:-old new v1 v2}; do
      ./.bench/quadflood-$b bench --n $n --steps 1000 --maxima --adapter NVIDIA --json /tmp/b.json > /tmp/log.txt 2>&1
      echo "$b n=$n round=$round: $(grep -o '"cell_updates_per_s": [0-9.e+]*' /tmp/b.json)"
    done
  done
done
