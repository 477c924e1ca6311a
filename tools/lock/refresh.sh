#!/usr/bin/env bash
# Regenerates the package lock: installs every locked package at the version the package
# registry serves now (apt-get), then rewrites each package line with this host's version and
# files-sha256. Comments, blank lines and the order of the lines are kept, so adding a package is
# one line with its name alone, then this command. Review the diff, then commit the lock.
#
#   bash tools/lock/refresh.sh [--from-host] [--root DIR] [--lock FILE]
#
# --from-host records the host as it is (no apt-get; every package must be installed).
# --root DIR records a system under DIR (tests; implies --from-host).
# --lock FILE rewrites FILE instead of third_party/packages.lock.
set -euo pipefail
export LC_ALL=C
here=$(dirname "${BASH_SOURCE[0]}")
source "$here/lock_file.sh"

lock="$(cd "$here/../.." && pwd)/third_party/packages.lock"
from_host=0
root_args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --from-host) from_host=1; shift ;;
    --root) root_args=(--root "$2"); from_host=1; shift 2 ;;
    --lock) lock=$2; shift 2 ;;
    *) echo "usage: refresh.sh [--from-host] [--root DIR] [--lock FILE]" >&2; exit 2 ;;
  esac
done

lock_read "$lock" --allow-pending || exit 1

if [[ $from_host -eq 0 ]]; then
  sudo=()
  if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
  echo "refresh: installing the registry's current versions of ${#LOCK_NAMES[@]} locked packages"
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${LOCK_NAMES[@]}"
fi

declare -A new_version=() new_digest=()
missing=()
host_state=$(bash "$here/host_packages.sh" "${root_args[@]}" "${LOCK_NAMES[@]}") || exit 1
while read -r name ver dig; do
  if [[ $ver == - ]]; then missing+=("$name"); continue; fi
  new_version[$name]=$ver
  new_digest[$name]=$dig
done <<<"$host_state"
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "refresh: not installed on this host, so not recorded: ${missing[*]}" >&2
  echo "refresh: run without --from-host to install them from the registry" >&2
  exit 1
fi

# Package lines rewritten in place; every other line kept as it is.
declare -A line_of=()
for i in "${!LOCK_NAMES[@]}"; do line_of[${LOCK_LINENOS[$i]}]=${LOCK_NAMES[$i]}; done
tmp="$lock.refresh.$$"
trap 'rm -f "$tmp"' EXIT
lineno=0
while IFS= read -r line || [[ -n $line ]]; do
  lineno=$((lineno + 1))
  name=${line_of[$lineno]:-}
  if [[ -z $name ]]; then
    printf '%s\n' "$line"
  else
    printf '%-26s %-22s %s\n' "$name" "${new_version[$name]}" "${new_digest[$name]}"
  fi
done <"$lock" >"$tmp"
mv "$tmp" "$lock"
trap - EXIT

changed=0
for i in "${!LOCK_NAMES[@]}"; do
  name=${LOCK_NAMES[$i]} old=${LOCK_VERSIONS[$i]} digest=${LOCK_DIGESTS[$i]}
  if [[ $old != "${new_version[$name]}" ]]; then
    echo "refresh: $name ${old:-(new)} -> ${new_version[$name]}"
    changed=$((changed + 1))
  elif [[ $digest != "${new_digest[$name]}" ]]; then
    echo "refresh: $name ${old}: files-sha256 changed"
    changed=$((changed + 1))
  fi
done
echo "refresh: $lock: ${#LOCK_NAMES[@]} packages, $changed changed"
