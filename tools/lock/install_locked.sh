#!/usr/bin/env bash
# Installs exactly the versions a package lock names (apt-get install name=version), then checks
# the host against the lock, digests included. tools/setup.sh runs it on third_party/packages.lock.
# Idempotent, and quick when everything is installed: no apt-get, no file read but dpkg's status.
# When the registry no longer serves a locked version it says which, and how to refresh the lock.
#
#   bash tools/lock/install_locked.sh [--root DIR] LOCK
#
# --root DIR works on a system under DIR (tests; apt-get and apt-cache come from PATH as usual).
set -euo pipefail
export LC_ALL=C
here=$(dirname "${BASH_SOURCE[0]}")
source "$here/lock_file.sh"

root_args=()
if [[ ${1:-} == --root ]]; then root_args=(--root "$2"); shift 2; fi
if [[ $# -ne 1 ]]; then
  echo "usage: install_locked.sh [--root DIR] LOCK" >&2
  exit 2
fi
lock=$1
lock_read "$lock" || exit 1

needed=()
i=0
host_state=$(bash "$here/host_packages.sh" "${root_args[@]}" --versions-only "${LOCK_NAMES[@]}") || exit 1
while read -r name ver _; do
  if [[ $ver != "${LOCK_VERSIONS[$i]}" ]]; then needed+=("$name=${LOCK_VERSIONS[$i]}"); fi
  i=$((i + 1))
done <<<"$host_state"

if [[ ${#needed[@]} -eq 0 ]]; then
  echo "setup: all ${#LOCK_NAMES[@]} locked packages are installed at their locked versions"
  exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
echo "setup: ${#needed[@]} packages to install at their locked versions: ${needed[*]}"
"${sudo[@]}" apt-get update -q

# `apt-cache madison` lists the versions the registry serves (`apt-cache show name=version`
# exits 0 even for a version it does not have).
unserved=0
for want in "${needed[@]}"; do
  name=${want%%=*}
  served=$(apt-cache madison "$name" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); printf " %s", $2 }')
  if [[ " $served " != *" ${want#*=} "* ]]; then
    echo "setup: the package registry no longer serves $name ${want#*=} (it serves:${served:- nothing})" >&2
    unserved=$((unserved + 1))
  fi
done
if [[ $unserved -gt 0 ]]; then
  echo "setup: refresh the lock to what the registry serves now: $LOCK_REFRESH_COMMAND" >&2
  exit 1
fi

# No package's maintainer script may start a service (munged, slurmctld, slurmd, ...): dashi needs
# none running (tools/slurm/local_cluster_test.sh starts private ones), and in a container there
# is no init to start them with. invoke-rc.d and deb-systemd-invoke ask /usr/sbin/policy-rc.d;
# where the host has none (Debian's container images ship one that exits 101), one that denies
# everything is put there for the install and removed afterwards. One that exists is left alone.
policy="${root_args[1]:-}/usr/sbin/policy-rc.d"
if [[ ! -e $policy ]]; then
  policy_tmp=$(mktemp)
  printf '#!/bin/sh\n# tools/lock/install_locked.sh: no service starts during the install.\nexit 101\n' \
    >"$policy_tmp"
  trap '"${sudo[@]}" rm -f "$policy"; rm -f "$policy_tmp"' EXIT
  "${sudo[@]}" install -D -m 0755 "$policy_tmp" "$policy"
fi
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends --allow-downgrades "${needed[@]}"

# apt-get may have chosen differently for a package's dependencies; the check has the last word.
bash "$here/check_packages.sh" "${root_args[@]}" "$lock" >/dev/null
echo "setup: done; the host matches $lock"
