#!/usr/bin/env bash
# deploy.sh - build and ship the service to a target host.
set -euo pipefail

readonly APP=contextfs
TARGET=${1:-staging}
BUILD_DIR="$(mktemp -d)"

trap 'rm -rf "$BUILD_DIR"' EXIT

# log prints a timestamped message to stderr.
log() {
	printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2
}

die() {
	log "error: $*"
	exit 1
}

function build {
	log "building $APP"
	go build -o "$BUILD_DIR/$APP" ./cmd/"$APP" || die "build failed"
}

upload() {
	local host=$1
	log "uploading to $host"
	scp "$BUILD_DIR/$APP" "deploy@$host:/opt/$APP/bin/" || die "upload failed"
	ssh "deploy@$host" "sudo systemctl restart $APP"
}

case "$TARGET" in
staging) HOSTS=(stage1.internal) ;;
production) HOSTS=(prod1.internal prod2.internal) ;;
*) die "unknown target $TARGET" ;;
esac

build
for h in "${HOSTS[@]}"; do
	upload "$h"
done
log "deployed $APP to $TARGET"
