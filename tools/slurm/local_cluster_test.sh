#!/usr/bin/env bash
# A single-node Slurm cluster on this machine (Debian's slurm-wlm and munge: munged, slurmctld and
# slurmd on localhost, run as root with a private configuration under WORK), a 4-shard dataset
# submitted as a job array with tools/slurm/dataset_array.sbatch, merged, verified, and compared
# byte for byte (diff -r) with a one-process run. .ci/run runs it. Needs root and the packages of
# third_party/packages.lock's Slurm section (tools/setup.sh installs them).
#   tools/slurm/local_cluster_test.sh DASHI [WORK [SPEC]]
# WORK: a directory to (re)create and keep (default: a fresh mktemp directory, removed after a
# pass, kept after a failure). SPEC: a dataset spec (default: a 16-item one); the issue-16
# acceptance spec is tools/dataset/acceptance_spec.json.
# Nothing outside WORK is read or written: the munge key is made here, slurm.conf names this host
# (at 127.0.0.1) and free ports, state, spool, sockets, pid and log files are under WORK. Every
# wait has a timeout (SLURM_TEST_JOB_TIMEOUT seconds for the array, default 900). On every exit
# the jobs are cancelled and the daemons this script started (their ids) are stopped.
# Exit 0 only if the bytes match; the last line is PASS: or FAIL:.
set -uo pipefail
DASHI="$(readlink -f "${1:?usage: local_cluster_test.sh DASHI [WORK [SPEC]]}")"
SPEC="${3:-}"
JOB_TIMEOUT="${SLURM_TEST_JOB_TIMEOUT:-900}"
HERE="$(cd "$(dirname "$0")" && pwd)"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$DASHI" ] || fail "$DASHI is not an executable"
[ "$(id -u)" = 0 ] || fail "needs root (munged, slurmctld and slurmd run as root here)"
for tool in munged slurmctld slurmd sbatch sinfo squeue scancel scontrol; do
  command -v "$tool" >/dev/null || fail "$tool not found: run tools/setup.sh (package lock, Slurm section)"
done
if [ -n "${2:-}" ]; then
  W="$(readlink -f "$2")"; keep_work=1
  rm -rf "$W"; mkdir -p "$W" || fail "cannot create $W"
else
  W="$(mktemp -d /tmp/dashi_slurm.XXXXXX)" || fail "mktemp"; keep_work=0
fi
mkdir -p "$W"/{state,spool,log,munge,data}
chmod 0700 "$W/munge"

pids=()
passed=0
cleanup() {
  if [ -n "${SLURM_CONF:-}" ] && [ "${#pids[@]}" -gt 1 ]; then
    # Jobs first, while slurmctld and slurmd are up to cancel them.
    local jobs; jobs=$(timeout 20 squeue -h -o %i 2>/dev/null)
    if [ -n "$jobs" ]; then
      timeout 20 scancel $jobs 2>/dev/null
      for _ in $(seq 1 20); do
        [ -z "$(timeout 20 squeue -h -o %i 2>/dev/null)" ] && break
        sleep 0.5
      done
    fi
  fi
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  if [ "$passed" = 1 ] && [ "$keep_work" = 0 ]; then rm -rf "$W"; fi
  if [ "$passed" != 1 ]; then echo "local_cluster_test: logs kept in $W/log and $W/munge"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# waitfor SECONDS WHAT COMMAND...: polls COMMAND every 0.2 s until it succeeds.
waitfor() {
  local secs=$1 what=$2; shift 2
  local end=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$end" ] || return 1
    sleep 0.2
  done
  echo "local_cluster_test: $what"
}
alive() { kill -0 "$1" 2>/dev/null; }
# A TCP port nobody listens on, from a range the system does not hand out for outgoing ones.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port_pair() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + (RANDOM % 5000) * 2))
    if port_free "$p" && port_free "$((p + 1))"; then echo "$p"; return 0; fi
  done
  return 1
}

host=$(hostname -s)
cpus=$(nproc)
port=$(free_port_pair) || fail "no free pair of TCP ports for slurmctld and slurmd"

# munge: a fresh key, a private socket, in the foreground (its pid is $!).
dd if=/dev/urandom bs=1 count=1024 of="$W/munge/munge.key" 2>/dev/null
chmod 0400 "$W/munge/munge.key"
munged --foreground --force --key-file="$W/munge/munge.key" --socket="$W/munge/munge.socket" \
  --pid-file="$W/munge/munged.pid" --log-file="$W/munge/munged.log" --seed-file="$W/munge/seed" \
  >"$W/log/munged.out" 2>&1 &
pids+=("$!")
waitfor 20 "munged up (pid ${pids[0]})" test -S "$W/munge/munge.socket" \
  || { cat "$W/log/munged.out" "$W/munge/munged.log" 2>/dev/null; fail "munged did not start"; }

cat >"$W/slurm.conf" <<CONF
ClusterName=dashi
SlurmctldHost=$host(127.0.0.1)
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
PlugStackConfig=$W/plugstack.conf
SlurmctldPort=$port
SlurmdPort=$((port + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
: >"$W/plugstack.conf"
export SLURM_CONF="$W/slurm.conf"
echo "local_cluster_test: $W, node $host ($cpus CPUs), ports $port and $((port + 1))"

# Both daemons in the foreground (-D) so that their pids are known; -c: no state to recover.
slurmctld -D -c -f "$SLURM_CONF" >"$W/log/slurmctld.out" 2>&1 &
pids+=("$!")
waitfor 30 "slurmctld up (pid ${pids[1]})" timeout 10 scontrol ping \
  || { alive "${pids[1]}" || echo "slurmctld exited"; tail -20 "$W/log/slurmctld.log" "$W/log/slurmctld.out"; fail "slurmctld"; }
slurmd -D -f "$SLURM_CONF" >"$W/log/slurmd.out" 2>&1 &
pids+=("$!")
node_idle() { alive "${pids[2]}" && timeout 10 sinfo -h -n "$host" -o %T | grep -qx idle; }
waitfor 60 "slurmd up (pid ${pids[2]}), node $host idle" node_idle \
  || { timeout 10 sinfo; tail -20 "$W/log/slurmd.log" "$W/log/slurmd.out"; fail "slurmd: node $host not idle within 60 s"; }

if [ -n "$SPEC" ]; then cp "$SPEC" "$W/spec.json" || fail "cannot read $SPEC"; else cat >"$W/spec.json" <<'JSON'
{"format": "dashi-dataset-spec/1", "n": [32, 64], "seeds": {"first": 1, "count": 4},
 "les": [{"nu0": 1e-3}, {"nu0": 5e-4, "cs": 0.1}], "steps": 60, "save_every": 10,
 "keep": {"vorticity": true, "series": true, "proxy": {"k_lo": 4, "k_mid": 8, "anchors": 4},
          "decodes": true}}
JSON
fi
t0=$SECONDS
DASHI="$DASHI" JOBS=1 timeout "$JOB_TIMEOUT" sbatch --wait --array=0-3 --chdir="$W" \
  --output="$W/log/task-%a.log" --export=ALL "$HERE/dataset_array.sbatch" "$W/spec.json" \
  "$W/data" >"$W/log/sbatch.out" 2>&1
rc=$?
t1=$SECONDS
cat "$W/log/sbatch.out"
if [ "$rc" != 0 ]; then
  cat "$W"/log/task-*.log 2>/dev/null; tail -20 "$W/log/slurmctld.log"
  [ "$rc" = 124 ] && fail "the job array did not finish within $JOB_TIMEOUT s"
  fail "sbatch --wait exited $rc"
fi
"$DASHI" dataset merge "$W/data/all" "$W"/data/shard_* || fail "dataset merge"
"$DASHI" dataset verify "$W/data/all" --regenerate 2 || fail "dataset verify"
"$DASHI" dataset generate --spec "$W/spec.json" --out "$W/one" --quiet >/dev/null \
  || fail "one-process generate"
diff -r "$W/one" "$W/data/all" || fail "the Slurm dataset differs from the one-process run"
items=$(ls "$W/one/items" | wc -l)
passed=1
echo "PASS: 4-task Slurm array of $items items ($((t1 - t0)) s), merged, verified, == one-process run (diff -r)"
