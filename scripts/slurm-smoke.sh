#!/usr/bin/env bash
# A one-node Slurm cluster on this machine (Debian's slurm-wlm and munge), a sharded memplan
# sweep submitted as a job array (examples/slurm/sweep.sbatch), the shards merged, and the
# merged tables compared with an unsharded run's, byte for byte. Not part of CI: it installs
# packages and starts system daemons (run it as root on Debian 12 or in a throwaway
# container), and stops them at the end.
#
#   bash scripts/slurm-smoke.sh [experiments/table2.json] [shards]
set -euo pipefail
cd "$(dirname "$0")/.."
EXPERIMENT=${1:-experiments/table2.json}
SHARDS=${2:-4}
NAME=$(node -e "console.log(JSON.parse(require('fs').readFileSync(process.argv[1],'utf8')).name)" "$EXPERIMENT")
WORK=$(mktemp -d /tmp/memplan-slurm-XXXXXX)
log() { echo "slurm-smoke: $*"; }

# 1. Packages and the project.
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  log "installing slurm-wlm and munge"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi
[ -d node_modules ] || { log "npm ci first"; exit 2; }

# 2. munge: a key, the daemon.
if [ ! -s /etc/munge/munge.key ]; then mungekey --create 2>/dev/null || /usr/sbin/create-munge-key -f; fi
chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
mkdir -p /run/munge && chown munge:munge /run/munge
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged

# 3. One node: this host, all its CPUs; no accounting, no cgroups.
host=$(hostname -s)
cpus=$(nproc)
mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 512 ))
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=memplan-smoke
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=3600
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
stop() { scontrol shutdown >/dev/null 2>&1 || true; pkill -x slurmd 2>/dev/null || true; }
trap stop EXIT
pgrep -x slurmctld >/dev/null || slurmctld
pgrep -x slurmd >/dev/null || slurmd
for _ in $(seq 60); do sinfo -h -o %T 2>/dev/null | grep -qE 'idle|mix' && break; sleep 1; done
log "cluster up: $(sinfo -h -o '%P %D %T %C')"

# 4. The sweep as an array, one shard per task; wait for it.
export EXPERIMENT RESULTS="$WORK/results"
job=$(sbatch --parsable --array=0-$((SHARDS - 1)) --export=ALL --chdir="$PWD" --output="$WORK/memplan-%A_%a.log" examples/slurm/sweep.sbatch)
log "submitted array job $job ($SHARDS tasks)"
while squeue -h -j "$job" 2>/dev/null | grep -q .; do sleep 2; done
failed=0
for k in $(seq 0 $((SHARDS - 1))); do
  state=$(scontrol show job "${job}_$k" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1)
  cells=$(cat "$RESULTS/$NAME"/*-shard-"$k"-of-"$SHARDS"/results.jsonl 2>/dev/null | wc -l)
  log "task $k: ${state:-unknown}, $cells cells"
  [ "$state" = COMPLETED ] || failed=1
done
[ $failed = 0 ] || { log "a task did not complete; logs in $WORK"; exit 1; }

# 5. Merge, run unsharded, compare the reports.
npx memplan merge "$RESULTS/$NAME"/*-shard-*-of-"$SHARDS" --to "$WORK/merged" >/dev/null 2>"$WORK/merge.log"
log "merged: $(grep -o 'merged .*' "$WORK/merge.log")"
npx memplan report "$WORK/merged" >/dev/null 2>&1
single=$(npx memplan run "$EXPERIMENT" --out "$WORK/single" 2>"$WORK/single.log")
npx memplan report "$single" >/dev/null 2>&1
for ext in md csv tex; do
  if cmp -s "$WORK/merged/report/$NAME.$ext" "$single/report/$NAME.$ext"; then log "$NAME.$ext: merged = unsharded"; else log "$NAME.$ext DIFFERS"; failed=1; fi
done
[ $failed = 0 ] && log "PASS: $SHARDS shards on Slurm, merged, give the tables of one run ($WORK)" || { log "FAIL ($WORK)"; exit 1; }
