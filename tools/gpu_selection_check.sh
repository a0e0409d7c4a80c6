#!/usr/bin/env bash
# GPU selection and several ranks per GPU, on a node with two NVIDIA GPUs and OpenMPI:
# which GPU each rank takes (its own line, and nvidia-smi's list of compute apps) under
# plain mpirun, 8 ranks on 2 GPUs, CUDA_VISIBLE_DEVICES by index and by UUID, --adapter
# and a MIG id (refused), and whether every run writes one rank's bytes.
#   OUT=report-dir QUADFLOOD=path/to/quadflood tools/gpu_selection_check.sh
# Results of 2026-11-26 on 2x H100: docs/data/gpu-selection-2xh100-2026-11-26/.
set -u
B=$(realpath "${QUADFLOOD:-target/release/quadflood}")
mkdir -p "$OUT"
S=$PWD/scenarios/circular-dam-break.toml
SET="--set domain.nx=1024 --set domain.ny=1024 --set domain.cell_size=0.25"
MPI="mpirun --allow-run-as-root --bind-to none --oversubscribe"
nvidia-smi --query-gpu=index,pci.bus_id,uuid --format=csv > $OUT/gpus.txt
$B info > $OUT/info.txt 2>&1
U0=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i 0); U1=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i 1)
sample() { while true; do nvidia-smi --query-compute-apps=pid,gpu_bus_id,process_name --format=csv,noheader; sleep 0.3; done; }
go() { name=$1; shift; sample > $OUT/apps-$name.tmp 2>&1 & sp=$!; "$@" > $OUT/log-$name.tmp 2>&1; rc=$?; kill $sp; echo "== $name rc=$rc" >> $OUT/report.txt; grep -h "rank .* of\|error" $OUT/log-$name.tmp >> $OUT/report.txt; sort -u $OUT/apps-$name.tmp | sed 's/^/  app /' >> $OUT/report.txt; }
go one $B run $S $SET --out /tmp/o1
go two $MPI -n 2 $B run $S $SET --out /tmp/o2
go eight $MPI -n 8 $B run $S $SET --out /tmp/o8
go cvd1 $MPI -n 2 -x CUDA_VISIBLE_DEVICES=1 $B run $S $SET --out /tmp/oc1
go uuid $MPI -n 2 -x CUDA_VISIBLE_DEVICES=$U1,$U0 $B run $S $SET --out /tmp/ou
go adapter $MPI -n 2 $B run $S $SET --adapter NVIDIA --out /tmp/oa
go single_cvd1 env CUDA_VISIBLE_DEVICES=1 $B run $S $SET --out /tmp/os1
go mig $MPI -n 2 -x CUDA_VISIBLE_DEVICES=MIG-abc $B run $S $SET --out /tmp/om
for d in o2 o8 oc1 ou oa os1; do
  n=0; bad=0
  for f in $(cd /tmp/o1 && ls | grep -v -e summary.json -e run.log); do n=$((n+1)); cmp -s /tmp/o1/$f /tmp/$d/$f || { bad=$((bad+1)); echo "  $d differs: $f" >> $OUT/report.txt; }; done
  echo "$d: $n files compared with one rank, $bad differ" >> $OUT/report.txt
done
ls /tmp/o1 >> $OUT/report.txt
tail -15 $OUT/log-eight.tmp > $OUT/log-eight.txt; tail -15 $OUT/log-mig.tmp > $OUT/log-mig.txt; rm -f $OUT/*.tmp
cat $OUT/report.txt
