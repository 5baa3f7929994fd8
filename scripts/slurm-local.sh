#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the tests that submit the
# recipes of docs/cluster.md to a real scheduler (tests/suite/slurm.rs). As root:
#
#   scripts/slurm-local.sh start    # install if missing, configure, start, wait until idle
#   scripts/slurm-local.sh stop     # stop the daemons
#   scripts/slurm-local.sh status   # sinfo
#
# It installs slurmctld, slurmd, the client commands and munge from the
# distribution's packages (Debian/Ubuntu apt), writes a munge key if there is
# none, and writes /etc/slurm/slurm.conf for this host alone (its cores and
# memory, one partition, requeue allowed, no accounting database), replacing
# any there. Not for a machine that is part of a real cluster.
set -euo pipefail

CONF_DIR=/etc/slurm
LOG_DIR=/var/log/slurm

need_root() {
    if [ "$(id -u)" -ne 0 ]; then
        echo "slurm-local.sh: must run as root (it installs packages and starts daemons)" >&2
        exit 2
    fi
}

install_packages() {
    if command -v slurmctld >/dev/null && command -v slurmd >/dev/null \
        && command -v sbatch >/dev/null && command -v munged >/dev/null; then
        return
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        slurmctld slurmd slurm-client munge >/dev/null
}

start_munge() {
    mkdir -p /etc/munge /var/lib/munge /var/log/munge /run/munge
    if [ ! -s /etc/munge/munge.key ]; then
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    fi
    chown -R munge:munge /etc/munge /var/lib/munge /var/log/munge /run/munge
    chmod 0700 /etc/munge
    chmod 0400 /etc/munge/munge.key
    if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
        runuser -u munge -- /usr/sbin/munged
    fi
    for _ in $(seq 50); do
        munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && return
        sleep 0.1
    done
    echo "slurm-local.sh: munged did not start" >&2
    exit 1
}

write_config() {
    local host cpus memory
    host=$(hostname -s)
    cpus=$(nproc)
    # What slurmd will find, less a margin, in MB.
    memory=$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
    mkdir -p "$CONF_DIR" "$LOG_DIR" /var/spool/slurmctld /var/spool/slurmd
    cat > "$CONF_DIR/slurm.conf" <<CONF
# Written by scripts/slurm-local.sh: this host alone, for tests.
ClusterName=nqueens-local
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobRequeue=1
KillWait=10
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldLogFile=$LOG_DIR/slurmctld.log
SlurmdLogFile=$LOG_DIR/slurmd.log
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
    # Slurm 22 and later read cgroup.conf even when no cgroup plugin is used.
    cat > "$CONF_DIR/cgroup.conf" <<CONF
CgroupPlugin=autodetect
CONF
}

start() {
    need_root
    install_packages
    start_munge
    write_config
    pkill -x slurmctld 2>/dev/null || true
    pkill -x slurmd 2>/dev/null || true
    sleep 0.5
    slurmctld
    slurmd
    local host
    host=$(hostname -s)
    for _ in $(seq 100); do
        state=$(sinfo -h -N -n "$host" -o %T 2>/dev/null || true)
        case "$state" in
            idle*|mixed*|allocated*)
                echo "slurm-local.sh: one-node Slurm up ($host, $(nproc) CPUs)"
                return
                ;;
            down*|drain*)
                scontrol update nodename="$host" state=resume 2>/dev/null || true
                ;;
        esac
        sleep 0.2
    done
    echo "slurm-local.sh: the node did not come up; see $LOG_DIR/slurmctld.log and slurmd.log" >&2
    sinfo >&2 || true
    exit 1
}

stop() {
    need_root
    pkill -x slurmd 2>/dev/null || true
    pkill -x slurmctld 2>/dev/null || true
}

case "${1:-start}" in
    start) start ;;
    stop) stop ;;
    status) sinfo ;;
    *)
        echo "usage: scripts/slurm-local.sh start|stop|status" >&2
        exit 2
        ;;
esac
