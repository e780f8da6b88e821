#!/usr/bin/env bash
# Installs a software Vulkan driver for the WebGPU backend (Dawn runs on Vulkan):
# Mesa 25's lavapipe from bookworm-backports, on Debian 12. Non-interactive and idempotent:
# it does nothing when a usable Vulkan driver (ICD) is already present. See docs/webgpu.md.
#
#   scripts/install-vulkan.sh            # install unless an ICD is there
#   MEMPLAN_VULKAN_ICD=/path/icd.json    # an ICD you chose: the script leaves the system alone
set -euo pipefail

MIN_MESA_MAJOR=24 # Debian 12's own lavapipe (Mesa 22.3) is too old for Dawn.

log() { echo "install-vulkan: $*"; }

mesa_major() {
  local version
  version=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true)
  version=${version#*:}
  echo "${version%%.*}"
}

# 1. Is a usable driver already there?
if [ -n "${MEMPLAN_VULKAN_ICD:-}" ] && [ -f "$MEMPLAN_VULKAN_ICD" ]; then
  log "MEMPLAN_VULKAN_ICD=$MEMPLAN_VULKAN_ICD exists; nothing to do."
  exit 0
fi
# Chromium's SwiftShader would do, but lavapipe runs the WebGPU tests about 4x faster, and
# the backend prefers it (src/backends/webgpu/driver.ts): install it even beside Chromium.
major=$(mesa_major)
if [ -n "$major" ] && [ "$major" -ge "$MIN_MESA_MAJOR" ] && ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1; then
  log "Mesa $major lavapipe is installed; nothing to do."
  exit 0
fi
# A GPU vendor's driver (not one of Mesa's, which come and go with mesa-vulkan-drivers).
for icd in /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json; do
  [ -f "$icd" ] || continue
  owner=$(dpkg-query -S "$icd" 2>/dev/null | cut -d: -f1 || true)
  if [ "$owner" != "mesa-vulkan-drivers" ]; then
    log "found a Vulkan driver ($icd); nothing to do."
    exit 0
  fi
done
if [ -n "$major" ]; then log "Mesa $major's lavapipe is too old for Dawn: upgrading from bookworm-backports."; fi

# 2. Install Mesa lavapipe from bookworm-backports.
if [ ! -r /etc/os-release ] || ! grep -q '^VERSION_CODENAME=bookworm' /etc/os-release; then
  log "this script installs lavapipe on Debian 12 (bookworm) only; on other systems install a Vulkan driver (Mesa >= $MIN_MESA_MAJOR lavapipe, SwiftShader or a GPU's) yourself: see docs/webgpu.md."
  exit 1
fi
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=(sudo); else log "run as root (or install sudo)."; exit 1; fi
fi
export DEBIAN_FRONTEND=noninteractive
if ! grep -rqs '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  log "adding bookworm-backports to the apt sources."
  echo 'deb http://deb.debian.org/debian bookworm-backports main' | "${SUDO[@]}" tee /etc/apt/sources.list.d/bookworm-backports.list >/dev/null
fi
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends -t bookworm-backports mesa-vulkan-drivers libvulkan1
major=$(mesa_major)
if [ -z "$major" ] || [ "$major" -lt "$MIN_MESA_MAJOR" ]; then
  log "mesa-vulkan-drivers ${major:-(none)} was installed, but Dawn needs Mesa >= $MIN_MESA_MAJOR."
  exit 1
fi
log "installed Mesa $major lavapipe: $(ls /usr/share/vulkan/icd.d/lvp_icd*.json 2>/dev/null | tr '\n' ' ')"
