# Reading third_party/packages.lock, for the scripts in tools/lock/ (sourced, not run).
# lock_read fills LOCK_NAMES, LOCK_VERSIONS, LOCK_DIGESTS and LOCK_LINENOS (parallel arrays, in
# the lock's order); LOCK_EXCLUDED_PATHS is the documentation the files-sha256 leaves out.
#
#   source tools/lock/lock_file.sh
#   lock_read third_party/packages.lock || exit 1

# Documentation paths: minimal Debian images drop them (dpkg path-exclude) and no build reads
# them, so they are outside the digest. An extended regular expression on the listed path.
LOCK_EXCLUDED_PATHS='^/usr/share/(doc|doc-base|man|groff|info|lintian|linda|locale)/'

# The command that rewrites the lock from the registry's current versions; every message that
# finds the lock stale names it.
LOCK_REFRESH_COMMAND="bash tools/lock/refresh.sh"

# lock_read FILE [--allow-pending]
# A line is a comment (#...), blank, or "<name> <version> <files-sha256>". With --allow-pending
# a line may hold a name alone (a package added by hand, not yet refreshed); its version and
# digest are then empty. Prints every malformed line to stderr and returns 1 if there was one.
lock_read() {
  local file=$1 allow_pending=${2:-} lineno=0 errors=0 line name version digest extra
  LOCK_NAMES=()
  LOCK_VERSIONS=()
  LOCK_DIGESTS=()
  LOCK_LINENOS=()
  if [[ ! -r $file ]]; then
    echo "$file: cannot read the package lock" >&2
    return 1
  fi
  local -A seen=()
  while IFS= read -r line || [[ -n $line ]]; do
    lineno=$((lineno + 1))
    [[ $line =~ ^[[:space:]]*(#|$) ]] && continue
    name="" version="" digest="" extra=""
    read -r name version digest extra <<<"$line"
    local where="$file:$lineno"
    if [[ -n $extra ]]; then
      echo "$where: expected '<name> <version> <files-sha256>', found more fields: $line" >&2
      errors=$((errors + 1)); continue
    fi
    if [[ ! $name =~ ^[a-z0-9][a-z0-9+.-]+(:[a-z0-9-]+)?$ ]]; then
      echo "$where: '$name' is not a Debian package name" >&2
      errors=$((errors + 1)); continue
    fi
    if [[ -n ${seen[$name]:-} ]]; then
      echo "$where: package $name is already locked on line ${seen[$name]}" >&2
      errors=$((errors + 1)); continue
    fi
    seen[$name]=$lineno
    if [[ -z $version ]]; then
      if [[ $allow_pending != --allow-pending ]]; then
        echo "$where: package $name has no locked version yet; run $LOCK_REFRESH_COMMAND" >&2
        errors=$((errors + 1)); continue
      fi
    elif [[ ! $digest =~ ^[0-9a-f]{64}$ ]]; then
      echo "$where: package $name: '$digest' is not a files-sha256 (64 lowercase hex digits)" >&2
      errors=$((errors + 1)); continue
    fi
    LOCK_NAMES+=("$name")
    LOCK_VERSIONS+=("$version")
    LOCK_DIGESTS+=("$digest")
    LOCK_LINENOS+=("$lineno")
  done <"$file"
  if [[ $errors -ne 0 ]]; then return 1; fi
  if [[ ${#LOCK_NAMES[@]} -eq 0 ]]; then
    echo "$file: the package lock names no package" >&2
    return 1
  fi
  return 0
}
