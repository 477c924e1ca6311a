#!/usr/bin/env bash
# The host's state of Debian packages as third_party/packages.lock records it: one line
# "<name> <version> <files-sha256>" per package named, "<name> - -" when it is not installed.
# The files-sha256 is defined in the lock's header comment (and docs/ARCHITECTURE.md, Build).
#
#   bash tools/lock/host_packages.sh [--root DIR] [--versions-only] NAME...
#
# --root DIR reads a system under DIR (DIR/var/lib/dpkg, DIR/usr/...) instead of /: the tests
# build a fake one. --versions-only prints "-" for every digest (no file is read).
set -euo pipefail
export LC_ALL=C
source "$(dirname "${BASH_SOURCE[0]}")/lock_file.sh"

root=""
digests=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --root) root=${2%/}; shift 2 ;;
    --versions-only) digests=0; shift ;;
    --) shift; break ;;
    -*) echo "host_packages.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
names=("$@")
[[ ${#names[@]} -gt 0 ]] || exit 0
if ! command -v dpkg-query >/dev/null; then
  echo "host_packages.sh: dpkg-query not found: the locked packages are Debian packages" >&2
  exit 2
fi
query=(dpkg-query)
[[ -z $root ]] || query+=("--root=$root")
native_arch=$(dpkg --print-architecture)

# Installed versions, by "name" (native or arch-independent) and by "name:arch".
declare -A version=()
while IFS=$'\t' read -r pkg arch ver status; do
  [[ ${status:1:1} == i ]] || continue  # the status letter: i = installed (not config-files only)
  version["$pkg:$arch"]=$ver
  if [[ $arch == "$native_arch" || $arch == all ]]; then version[$pkg]=$ver; fi
done < <("${query[@]}" -W -f='${Package}\t${Architecture}\t${Version}\t${db:Status-Abbrev}\n' \
           "${names[@]}" 2>/dev/null || true)

installed=()
for name in "${names[@]}"; do
  [[ -z ${version[$name]:-} ]] || installed+=("$name")
done

declare -A digest=()
if [[ $digests -eq 1 && ${#installed[@]} -gt 0 ]]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT

  # "<index>\t<path>" for every path each package lists. dpkg-query -L separates the packages'
  # lists by one empty line; if the count of lists is off, ask package by package instead.
  "${query[@]}" -L "${installed[@]}" >"$tmp/lists"
  awk -v n="${#installed[@]}" 'BEGIN { i = 1 } /^$/ { i++; next } /^\// { print i "\t" $0 }
       END { if (i != n) exit 1 }' "$tmp/lists" >"$tmp/owned" || {
    : >"$tmp/owned"
    for i in "${!installed[@]}"; do
      "${query[@]}" -L "${installed[$i]}" | awk -v i=$((i + 1)) '/^\// { print i "\t" $0 }' >>"$tmp/owned"
    done
  }
  if grep -q $'\t.*\t' "$tmp/owned"; then
    echo "host_packages.sh: a listed path holds a tab; the lock's digest cannot represent it" >&2
    exit 2
  fi
  grep -Ev $'^[0-9]+\t'"${LOCK_EXCLUDED_PATHS#^}" "$tmp/owned" >"$tmp/kept" || true

  # Type of every path ("f", "d", "l"...) and a symbolic link's target; absent paths print nothing.
  cut -f2 "$tmp/kept" | sort -u | awk -v r="$root" '{ printf "%s%s%c", r, $0, 0 }' >"$tmp/paths"
  xargs -0 -r sh -c 'f=$1; shift; exec find "$@" -maxdepth 0 -printf "$f"' sh '%y\t%l\t%p\n' \
    <"$tmp/paths" >"$tmp/types" 2>/dev/null || true

  # SHA-256 of the regular files, in one process per core (each writing its own file). OpenSSL's
  # SHA-256 is about four times faster than coreutils' where it is installed; same digests, and
  # both print "<hex> <mark><path>" with the path at column 67.
  hasher=(sha256sum)
  if command -v openssl >/dev/null; then hasher=(openssl dgst -sha256 -r); fi
  jobs=$(nproc 2>/dev/null || echo 1)
  awk -F'\t' '$1 == "f" { print $3 }' "$tmp/types" |
    awk -v j="$jobs" -v d="$tmp" '{ printf "%s%c", $0, 0 > (d "/chunk" (NR % j)) }'
  pids=()
  for chunk in "$tmp"/chunk*; do
    [[ -e $chunk ]] || continue
    xargs -0 -r "${hasher[@]}" <"$chunk" >"$chunk.sha256" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do
    wait "$pid" || { echo "host_packages.sh: ${hasher[0]} could not read every file (above)" >&2; exit 2; }
  done
  cat "$tmp"/chunk*.sha256 </dev/null >"$tmp/hashes" 2>/dev/null || : >"$tmp/hashes"

  # "<index>\t<path>\t<value>" sorted by index, then bytewise by path; then one text per package.
  awk -F'\t' -v r="$root" -v OFS='\t' '
    FILENAME == ARGV[1] {
      p = substr($3, length(r) + 1)
      if ($1 == "l") value[p] = "symlink:" $2
      else if ($1 != "f") value[p] = "dir"  # directories (and anything else) are left out
      next
    }
    FILENAME == ARGV[2] {
      h = substr($0, 1, 64); p = substr($0, 67)
      if (substr($0, 1, 1) == "\\") {  # sha256sum escapes a name holding \ or a newline
        h = substr($0, 2, 64); p = substr($0, 68); gsub(/\\\\/, "\\", p)
      }
      value[substr(p, length(r) + 1)] = h
      next
    }
    {
      v = ($2 in value) ? value[$2] : "missing"
      if (v != "dir") print $1, $2, v
    }' "$tmp/types" "$tmp/hashes" "$tmp/kept" |
    sort -t $'\t' -k1,1n -k2 -u >"$tmp/entries"
  for i in "${!installed[@]}"; do : >"$tmp/text.$((i + 1))"; done
  awk -F'\t' -v d="$tmp" '{ print $2 "\t" $3 > (d "/text." $1) }' "$tmp/entries"
  for i in "${!installed[@]}"; do
    digest[${installed[$i]}]=$(sha256sum <"$tmp/text.$((i + 1))" | cut -c1-64)
  done
fi

for name in "${names[@]}"; do
  if [[ -n ${version[$name]:-} ]]; then
    echo "$name ${version[$name]} ${digest[$name]:--}"
  else
    echo "$name - -"
  fi
done
