#!/usr/bin/env bash
# Installs exactly the Debian 12 packages, at exactly the versions, that third_party/packages.lock
# names: what dashi's build, tests and Vulkan runs use (tools/lock/install_locked.sh does it).
# Idempotent, and quick when everything is installed (no apt-get then). When the package registry
# no longer serves a locked version, it names it and the command that refreshes the lock.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
exec bash tools/lock/install_locked.sh third_party/packages.lock
