#!/usr/bin/env bash
# Makes this machine able to build and run the service's image, as root: Debian's podman with the runc
# runtime (crun cannot raise the container's ulimits here, nor use hybrid cgroups), default ulimits no
# higher than the machine's hard limits, then the stand-in base image (container-base.sh).
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v podman >/dev/null || ! command -v runc >/dev/null || ! command -v debootstrap >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc debootstrap uidmap fuse-overlayfs >/dev/null
fi
nofile=$(ulimit -Hn)
nproc=$(ulimit -Hu)
pid_max=$(cat /proc/sys/kernel/pid_max)
if [ "$nproc" = unlimited ] || [ "$nproc" -gt "$pid_max" ]; then nproc=$pid_max; fi
[ "$nofile" = unlimited ] && nofile=1048576
mkdir -p /etc/containers
cat >/etc/containers/containers.conf <<CONF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
./container-base.sh
