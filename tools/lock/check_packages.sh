#!/usr/bin/env bash
# Checks the host's Debian packages against a package lock: every locked package installed at
# its locked version, with its files-sha256. third_party/system_packages.bzl runs it when Bazel
# fetches @system_packages, so a host that differs fails the build with this script's message.
#
#   bash tools/lock/check_packages.sh [--root DIR] LOCK
#
# Exit 0: the host matches; stdout lists "<name> <version>" per locked package.
# Exit 1: it does not; stderr names each package with the locked and the host's version, or the
# files that changed, and the commands that fix it. --root DIR checks a system under DIR (tests).
set -euo pipefail
export LC_ALL=C
here=$(dirname "${BASH_SOURCE[0]}")
source "$here/lock_file.sh"

root_args=() dpkg_args=()
if [[ ${1:-} == --root ]]; then root_args=(--root "$2") dpkg_args=("--root=$2"); shift 2; fi
if [[ $# -ne 1 ]]; then
  echo "usage: check_packages.sh [--root DIR] LOCK" >&2
  exit 2
fi
lock=$1

if ! lock_read "$lock"; then
  echo "$lock: fix the lines above, or regenerate the lock from the host: $LOCK_REFRESH_COMMAND" >&2
  exit 1
fi

declare -A host_version=() host_digest=()
host_state=$(bash "$here/host_packages.sh" "${root_args[@]}" "${LOCK_NAMES[@]}") || exit 1
while read -r name ver dig; do
  host_version[$name]=$ver
  host_digest[$name]=$dig
done <<<"$host_state"

problems=() reinstall=()
setup_fixes=0
for i in "${!LOCK_NAMES[@]}"; do
  name=${LOCK_NAMES[$i]} locked=${LOCK_VERSIONS[$i]} want=${LOCK_DIGESTS[$i]}
  have=${host_version[$name]:--} got=${host_digest[$name]:--}
  if [[ $have == - ]]; then
    problems+=("$name: locked at $locked, not installed on this host")
    setup_fixes=1
  elif [[ $have != "$locked" ]]; then
    problems+=("$name: locked at $locked, this host has $have")
    setup_fixes=1
  elif [[ $got != "$want" ]]; then
    # Same version, other files: dpkg's own checksums name the files changed since installation.
    changed=$(dpkg "${dpkg_args[@]}" --verify "$name" 2>/dev/null |
                sed -n 's|^[^/]*\(/.*\)$|\1|p' | grep -Ev "$LOCK_EXCLUDED_PATHS" | tr '\n' ' ' || true)
    if [[ -n $changed ]]; then
      detail="changed on this host since installation: ${changed% }"
    else
      detail="dpkg's own checksums find no changed file: a symbolic link changed, or this host has another build of $locked"
    fi
    reinstall+=("$name")
    problems+=("$name $locked: its files differ from the lock (files-sha256 locked ${want:0:16}..., this host ${got:0:16}...); $detail")
  fi
done

if [[ ${#problems[@]} -gt 0 ]]; then
  {
    echo "$lock: this host's Debian packages differ from the lock:"
    printf '  %s\n' "${problems[@]}"
    if [[ $setup_fixes -eq 1 ]]; then echo "Install the locked versions: bash tools/setup.sh"; fi
    if [[ ${#reinstall[@]} -gt 0 ]]; then
      echo "Reinstall the packages whose files differ: apt-get install --reinstall ${reinstall[*]}"
    fi
    echo "Or refresh the lock to what the package registry serves now: $LOCK_REFRESH_COMMAND"
  } >&2
  exit 1
fi
for i in "${!LOCK_NAMES[@]}"; do
  echo "${LOCK_NAMES[$i]} ${LOCK_VERSIONS[$i]}"
done
