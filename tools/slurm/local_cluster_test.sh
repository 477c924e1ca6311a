#!/usr/bin/env bash
# A single-node Slurm cluster on this machine (Debian's slurm-wlm and munge: munged, slurmctld and
# slurmd on localhost, run as root with a private configuration under WORK), a 4-shard dataset
# submitted as a job array with tools/slurm/dataset_array.sbatch, merged, verified, and compared
# byte for byte (diff -r) with a one-process run. Needs root and `apt-get install slurm-wlm munge`.
# Stops only the daemons it started. Exit 0 only if the bytes match.
#   tools/slurm/local_cluster_test.sh DASHI [WORK [SPEC]]   (SPEC: a dataset spec; default a
#   16-item one; tools/dataset/scale_check.sh writes the 64-item acceptance spec to its WORKDIR)
set -uo pipefail
DASHI="$(readlink -f "${1:?usage: local_cluster_test.sh DASHI [WORK]}")"
W="${2:-/tmp/dashi_slurm}"
SPEC="${3:-}"
HERE="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$W"; mkdir -p "$W"/{state,spool,log,munge,data}
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT
host=$(hostname -s)
cpus=$(nproc)

# munge: a fresh key and a private socket.
dd if=/dev/urandom bs=1 count=1024 of="$W/munge/munge.key" 2>/dev/null
chmod 0400 "$W/munge/munge.key"
munged --force --key-file="$W/munge/munge.key" --socket="$W/munge/munge.socket" \
  --pid-file="$W/munge/munged.pid" --log-file="$W/munge/munged.log" --seed-file="$W/munge/seed" \
  || { echo "FAIL: munged did not start"; cat "$W/munge/munged.log"; exit 1; }
pids+=("$(cat "$W/munge/munged.pid")")

cat >"$W/slurm.conf" <<CONF
ClusterName=dashi
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$W/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd.pid
SlurmctldLogFile=$W/log/slurmctld.log
SlurmdLogFile=$W/log/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF="$W/slurm.conf"
slurmctld -f "$SLURM_CONF" || { echo "FAIL: slurmctld"; cat "$W/log/slurmctld.log"; exit 1; }
sleep 1; pids+=("$(cat "$W/slurmctld.pid")")
slurmd -f "$SLURM_CONF" || { echo "FAIL: slurmd"; cat "$W/log/slurmd.log"; exit 1; }
sleep 1; pids+=("$(cat "$W/slurmd.pid")")
for _ in $(seq 1 30); do
  sinfo -h -o %T 2>/dev/null | grep -q idle && break
  sleep 1
done
sinfo || { echo "FAIL: sinfo"; tail -20 "$W/log/slurmctld.log"; exit 1; }

if [ -n "$SPEC" ]; then cp "$SPEC" "$W/spec.json"; else cat >"$W/spec.json" <<'JSON'
{"format": "dashi-dataset-spec/1", "n": [32, 64], "seeds": {"first": 1, "count": 4},
 "les": [{"nu0": 1e-3}, {"nu0": 5e-4, "cs": 0.1}], "steps": 60, "save_every": 10,
 "keep": {"vorticity": true, "series": true, "proxy": {"k_lo": 4, "k_mid": 8, "anchors": 4}}}
JSON
fi
t0=$(date +%s)
DASHI="$DASHI" JOBS=1 sbatch --wait --array=0-3 --chdir="$W" --output="$W/log/task-%a.log" \
  --export=ALL "$HERE/dataset_array.sbatch" "$W/spec.json" "$W/data" \
  || { echo "FAIL: sbatch"; cat "$W"/log/task-*.log; tail -20 "$W/log/slurmctld.log"; exit 1; }
t1=$(date +%s)
"$DASHI" dataset merge "$W/data/all" "$W"/data/shard_* || exit 1
"$DASHI" dataset verify "$W/data/all" --regenerate 2 || exit 1
"$DASHI" dataset generate --spec "$W/spec.json" --out "$W/one" --quiet >/dev/null || exit 1
if diff -r "$W/one" "$W/data/all"; then
  echo "PASS: 4-task Slurm array ($((t1 - t0)) s), merged, verified, == one-process run (diff -r)"
else
  echo "FAIL: the Slurm dataset differs from the one-process run"; exit 1
fi
