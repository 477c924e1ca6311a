#!/usr/bin/env bash
# Tests the package lock's scripts on fake Debian systems (a dpkg database and files under a
# temporary root): refresh writes the digest the lock's header defines, the check passes on a
# matching host and fails naming the package and both versions (or the changed file) otherwise,
# and install_locked installs exactly the locked versions or names the one the registry lost.
set -uo pipefail
export LC_ALL=C
scripts=$(cd "$(dirname "$0")" && pwd)
if [[ -n ${TEST_TMPDIR:-} ]]; then
  tmp=$TEST_TMPDIR
else  # run by hand, outside Bazel
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
fi
arch=$(dpkg --print-architecture)
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# A fake system under $1 with two installed packages: libfoo-dev 1.2-3 (a header, a library and
# its symbolic link, a file whose name holds a space, documentation) and libbar 2.0-1 (a tool).
make_root() {
  local root=$1
  rm -rf "$root"
  mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/usr/include/foo" \
    "$root/usr/lib/foo" "$root/usr/share/foo" "$root/usr/share/doc/libfoo-dev" "$root/usr/bin"
  echo 1 >"$root/var/lib/dpkg/info/format"  # multiarch database: "<name>:<arch>.list"
  echo '#define FOO 1' >"$root/usr/include/foo/foo.h"
  printf 'ELF-ish bytes\001\002' >"$root/usr/lib/foo/libfoo.so.1"
  ln -s libfoo.so.1 "$root/usr/lib/foo/libfoo.so"
  echo 'data' >"$root/usr/share/foo/with space.txt"
  echo 'Copyright: nobody' >"$root/usr/share/doc/libfoo-dev/copyright"
  printf '#!/bin/sh\necho bar\n' >"$root/usr/bin/bar"
  printf '%s\n' /. /usr /usr/include /usr/include/foo /usr/include/foo/foo.h /usr/lib \
    /usr/lib/foo /usr/lib/foo/libfoo.so.1 /usr/lib/foo/libfoo.so /usr/share /usr/share/foo \
    '/usr/share/foo/with space.txt' /usr/share/doc /usr/share/doc/libfoo-dev \
    /usr/share/doc/libfoo-dev/copyright >"$root/var/lib/dpkg/info/libfoo-dev:$arch.list"
  printf '%s\n' /. /usr /usr/bin /usr/bin/bar >"$root/var/lib/dpkg/info/libbar.list"
  (cd "$root" && md5sum usr/include/foo/foo.h usr/lib/foo/libfoo.so.1 'usr/share/foo/with space.txt' \
     usr/share/doc/libfoo-dev/copyright >"var/lib/dpkg/info/libfoo-dev:$arch.md5sums")
  (cd "$root" && md5sum usr/bin/bar >var/lib/dpkg/info/libbar.md5sums)
  write_status "$root" 1.2-3 "install ok installed"
}

# The dpkg status file: libfoo-dev at version $2 with status $3, libbar 2.0-1 installed.
write_status() {
  cat >"$1/var/lib/dpkg/status" <<EOF
Package: libfoo-dev
Status: $3
Priority: optional
Section: libdevel
Maintainer: Nobody <nobody@example.org>
Architecture: $arch
Multi-Arch: same
Version: $2
Description: fake development files

Package: libbar
Status: install ok installed
Priority: optional
Section: utils
Maintainer: Nobody <nobody@example.org>
Architecture: all
Version: 2.0-1
Description: fake tool

EOF
}

# A lock naming both packages, not yet refreshed.
new_lock() {
  printf '# A test lock.\n\nlibfoo-dev\n# tools\nlibbar\n' >"$1"
}

# expect_check ROOT LOCK STATUS [TEXT...]: the check exits with STATUS and its output holds
# every TEXT.
expect_check() {
  local root=$1 lock=$2 want=$3 out rc
  shift 3
  out=$(bash "$scripts/check_packages.sh" --root "$root" "$lock" 2>&1)
  rc=$?
  [[ $rc -eq $want ]] || fail "check on $root exited $rc, expected $want; output:"$'\n'"$out"
  for text in "$@"; do
    [[ $out == *"$text"* ]] || fail "check output lacks '$text'; output:"$'\n'"$out"
  done
}

root="$tmp/root"
lock="$tmp/packages.lock"

# --- refresh writes versions and the digest the lock's header defines; the check passes -------
make_root "$root"
new_lock "$lock"
bash "$scripts/refresh.sh" --root "$root" --lock "$lock" >"$tmp/refresh.out" 2>&1 ||
  fail "refresh failed: $(cat "$tmp/refresh.out")"
read -r _ foo_version foo_digest < <(grep '^libfoo-dev ' "$lock")
[[ $foo_version == 1.2-3 ]] || fail "refresh recorded libfoo-dev $foo_version, expected 1.2-3"
expected=$(
  {
    printf '%s\t%s\n' /usr/include/foo/foo.h "$(sha256sum <"$root/usr/include/foo/foo.h" | cut -c1-64)"
    printf '%s\t%s\n' /usr/lib/foo/libfoo.so.1 "$(sha256sum <"$root/usr/lib/foo/libfoo.so.1" | cut -c1-64)"
    printf '%s\t%s\n' /usr/lib/foo/libfoo.so symlink:libfoo.so.1
    printf '%s\t%s\n' '/usr/share/foo/with space.txt' "$(sha256sum <"$root/usr/share/foo/with space.txt" | cut -c1-64)"
  } | sort | sha256sum | cut -c1-64)
[[ $foo_digest == "$expected" ]] ||
  fail "libfoo-dev files-sha256 $foo_digest, the lock's definition gives $expected"
grep -q '^# A test lock.$' "$lock" && grep -q '^# tools$' "$lock" ||
  fail "refresh did not keep the lock's comments"
grep -q '^libbar  *2.0-1  *[0-9a-f]\{64\}$' "$lock" || fail "refresh did not record libbar 2.0-1"
expect_check "$root" "$lock" 0 "libfoo-dev 1.2-3" "libbar 2.0-1"

# Documentation is outside the digest.
echo 'Copyright: somebody else' >"$root/usr/share/doc/libfoo-dev/copyright"
expect_check "$root" "$lock" 0

# --- a package at another version fails, naming it, both versions and the fixes ---------------
write_status "$root" 1.2-4 "install ok installed"
expect_check "$root" "$lock" 1 "libfoo-dev: locked at 1.2-3, this host has 1.2-4" \
  "bash tools/setup.sh" "bash tools/lock/refresh.sh"

# Not installed (gone, or only its configuration files left).
write_status "$root" 1.2-3 "deinstall ok config-files"
expect_check "$root" "$lock" 1 "libfoo-dev: locked at 1.2-3, not installed on this host"
sed -i '/^Package: libbar$/,/^$/d' "$root/var/lib/dpkg/status"
expect_check "$root" "$lock" 1 "libbar: locked at 2.0-1, not installed on this host"

# --- same version, other files: the digest catches it and dpkg's checksums name the file ------
make_root "$root"
echo '#define FOO 2' >"$root/usr/include/foo/foo.h"
expect_check "$root" "$lock" 1 "libfoo-dev 1.2-3: its files differ from the lock" \
  "changed on this host since installation: /usr/include/foo/foo.h" \
  "apt-get install --reinstall libfoo-dev" "bash tools/lock/refresh.sh"
make_root "$root"
rm "$root/usr/lib/foo/libfoo.so.1"
expect_check "$root" "$lock" 1 "libfoo-dev 1.2-3: its files differ from the lock" "/usr/lib/foo/libfoo.so.1"
make_root "$root"
ln -sfn libother.so "$root/usr/lib/foo/libfoo.so"
expect_check "$root" "$lock" 1 "libfoo-dev 1.2-3: its files differ from the lock" \
  "dpkg's own checksums find no changed file"

# --- a malformed lock fails with its line and the refresh command ------------------------------
make_root "$root"
new_lock "$tmp/pending.lock"
expect_check "$root" "$tmp/pending.lock" 1 "pending.lock:3: package libfoo-dev has no locked version yet" \
  "bash tools/lock/refresh.sh"
sed 's/^\(libbar  *[^ ]*  *\).*/\1not-a-digest/' "$lock" >"$tmp/bad.lock"
expect_check "$root" "$tmp/bad.lock" 1 "'not-a-digest' is not a files-sha256"
{ cat "$lock"; grep '^libbar ' "$lock"; } >"$tmp/twice.lock"
expect_check "$root" "$tmp/twice.lock" 1 "package libbar is already locked on line"

# --- install_locked: apt-get install name=version, or the version the registry lost ------------
# Stubs on PATH: apt-get logs its arguments and, on install, sets the versions in the fake status
# file; apt-cache serves the versions listed in $tmp/served; sudo runs its command.
stubs="$tmp/stubs"
mkdir -p "$stubs"
cat >"$stubs/apt-get" <<'EOF'
#!/usr/bin/env bash
echo "apt-get $*" >>"$STUB_LOG"
[[ $1 == update ]] && exit 0
# What a maintainer script's invoke-rc.d would be told: 101 denies starting a service.
if [[ -x $STUB_ROOT/usr/sbin/policy-rc.d ]]; then
  "$STUB_ROOT/usr/sbin/policy-rc.d" munge start; echo "policy-rc.d munge start: $?" >>"$STUB_LOG"
else
  echo "policy-rc.d: none" >>"$STUB_LOG"
fi
for arg in "$@"; do
  [[ $arg == *=* ]] || continue
  awk -v p="${arg%%=*}" -v v="${arg#*=}" '
    /^Package: / { cur = $2 } cur == p && /^Version: / { $0 = "Version: " v } { print }' \
    "$STUB_ROOT/var/lib/dpkg/status" >"$STUB_ROOT/status.new"
  mv "$STUB_ROOT/status.new" "$STUB_ROOT/var/lib/dpkg/status"
done
EOF
cat >"$stubs/apt-cache" <<'EOF'
#!/usr/bin/env bash
# Like apt-cache: `show name=version` exits 0 whether or not the version exists.
case $1 in
  show) exit 0 ;;
  madison) grep "^$2=" "$STUB_SERVED" | sed 's/^\([^=]*\)=\(.*\)$/ \1 | \2 | stub/' ;;
esac
EOF
printf '#!/usr/bin/env bash\nexec "$@"\n' >"$stubs/sudo"
chmod +x "$stubs"/*
export STUB_ROOT=$root STUB_LOG="$tmp/apt.log" STUB_SERVED="$tmp/served"

install_locked() {
  : >"$STUB_LOG"
  PATH="$stubs:$PATH" bash "$scripts/install_locked.sh" --root "$root" "$lock" >"$tmp/install.out" 2>&1
}

make_root "$root"
printf 'libfoo-dev=1.2-3\nlibbar=2.0-1\n' >"$STUB_SERVED"
install_locked || fail "install_locked on a matching host failed: $(cat "$tmp/install.out")"
grep -q "all 2 locked packages are installed at their locked versions" "$tmp/install.out" ||
  fail "install_locked did not report the host as complete: $(cat "$tmp/install.out")"
[[ ! -s $STUB_LOG ]] || fail "install_locked ran apt-get on a matching host: $(cat "$STUB_LOG")"

write_status "$root" 1.2-4 "install ok installed"
install_locked || fail "install_locked failed to install the locked version: $(cat "$tmp/install.out")"
grep -q -- "--allow-downgrades libfoo-dev=1.2-3$" "$STUB_LOG" ||
  fail "install_locked did not ask apt-get for libfoo-dev=1.2-3 alone: $(cat "$STUB_LOG")"
grep -q "the host matches" "$tmp/install.out" || fail "install_locked did not confirm: $(cat "$tmp/install.out")"
expect_check "$root" "$lock" 0
# Services: denied during the install by a policy-rc.d that is gone afterwards, where the host
# had none; a host's own policy-rc.d is used and kept.
grep -q "^policy-rc.d munge start: 101$" "$STUB_LOG" ||
  fail "install_locked let maintainer scripts start services: $(cat "$STUB_LOG")"
[[ ! -e $root/usr/sbin/policy-rc.d ]] || fail "install_locked left its policy-rc.d behind"
mkdir -p "$root/usr/sbin"
printf '#!/bin/sh\nexit 104\n' >"$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"
write_status "$root" 1.2-4 "install ok installed"
install_locked || fail "install_locked failed beside a policy-rc.d: $(cat "$tmp/install.out")"
grep -q "^policy-rc.d munge start: 104$" "$STUB_LOG" && grep -q 'exit 104' "$root/usr/sbin/policy-rc.d" ||
  fail "install_locked replaced the host's policy-rc.d: $(cat "$STUB_LOG")"
rm "$root/usr/sbin/policy-rc.d"

write_status "$root" 1.2-4 "install ok installed"
printf 'libfoo-dev=1.2-5\nlibbar=2.0-1\n' >"$STUB_SERVED"
if install_locked; then fail "install_locked succeeded although the registry lost libfoo-dev 1.2-3"; fi
grep -q "the package registry no longer serves libfoo-dev 1.2-3 (it serves: 1.2-5)" "$tmp/install.out" &&
  grep -q "bash tools/lock/refresh.sh" "$tmp/install.out" ||
  fail "install_locked did not name the lost version and the refresh: $(cat "$tmp/install.out")"
if grep -q "apt-get install" "$STUB_LOG"; then fail "install_locked installed anyway: $(cat "$STUB_LOG")"; fi

if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all package-lock checks passed"
