#!/usr/bin/env bash
# The container test: builds the project's Dockerfile with buildah (no Docker engine needed) and runs the image
# for real (test/container/drive.ts: sign-in, keys, speech, the WebSocket stream, Wyoming, VOICES_INSTALL, data
# kept across a restart on the same volume, SIGTERM). Run as root: `bash scripts/container-test.sh`.
# The base image is pulled when a registry is reachable, else a stand-in is built (scripts/container-base.sh).
# Prints the build time and image size; the last line is "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."

BASE=docker.io/library/node:20-bookworm-slim
IMAGE=localhost/voxsmith:container-test
started=$(date +%s)

summary_fail() {
  echo "not ok - $1"
  echo "0 passed, 1 failed"
  exit 1
}

if [ "$(id -u)" != 0 ]; then summary_fail "the container test runs as root (buildah with chroot isolation)"; fi
if ! command -v buildah >/dev/null || ! command -v debootstrap >/dev/null; then
  echo "container-test: installing buildah and debootstrap"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq buildah debootstrap >/dev/null; } ||
    summary_fail "buildah and debootstrap could not be installed"
fi

if ! buildah inspect --type image "$BASE" >/dev/null 2>&1; then
  if ! timeout 60 buildah pull --quiet "$BASE" >/dev/null 2>&1; then
    echo "container-test: $BASE cannot be pulled here: building a stand-in"
    bash scripts/container-base.sh || summary_fail "the stand-in base image could not be built"
  fi
fi

echo "container-test: building the Dockerfile"
build_started=$(date +%s)
if ! buildah bud --isolation chroot --format docker --layers --pull=never -t "$IMAGE" . >/tmp/voxsmith-container-build.log 2>&1; then
  tail -40 /tmp/voxsmith-container-build.log
  summary_fail "docker build of the project's Dockerfile (log: /tmp/voxsmith-container-build.log)"
fi
build_seconds=$(($(date +%s) - build_started))
size=$(buildah images --format '{{.Size}}' "$IMAGE" | head -1)
echo "container-test: image built in ${build_seconds} s, size ${size}"

node --import tsx test/container/drive.ts "$IMAGE" 2>&1 | tee /tmp/voxsmith-container-drive.log
status=${PIPESTATUS[0]}
# The build's layers stay in buildah's storage (/var/lib/containers): the next run reuses the toolchain and,
# while package.json and the lockfile are unchanged, the installed dependencies.
echo "container-test: build ${build_seconds} s, image ${size}, whole test $(($(date +%s) - started)) s"
summary=$(tail -1 /tmp/voxsmith-container-drive.log)
if [[ "$summary" =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]]; then echo "$summary"; else echo "0 passed, 1 failed"; status=1; fi
exit $status
