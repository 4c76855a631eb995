#!/bin/sh
# A short tour of contextfs in a throw-away repository, on the built-in
# defaults: no model download, no network, no server.
set -eu
command -v git-contextfs >/dev/null || { echo "git-contextfs is not on PATH (run: make install)" >&2; exit 1; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/contextfs-demo.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
git init -q -b main
git config user.name "Demo" && git config user.email "demo@example.com"
say() { printf '\n$ %s\n' "$*"; "$@"; }
say git contextfs init
say git contextfs save --type decision --tag db \
  --data '{"decision":"pgxpool with 20 connections per instance","status":"accepted","rationale":"pgx is the fastest driver and pools natively"}' \
  "We pool Postgres connections with pgxpool: 20 per instance, one pool per process."
say git contextfs save --type error --tag tests \
  --data '{"error_type":"EADDRINUSE","message":"listen tcp :8080: bind: address already in use","resolution":"listen on port 0 and read the port back"}' \
  "Integration tests failed with EADDRINUSE when run in parallel; tests now listen on port 0."
say git contextfs save --type procedural --tag release \
  "Release checklist: run make bench, update the README figures, tag vX.Y.Z and push the tag."
say git contextfs search "how do we pool db connections"
say git contextfs search "tests fail because the port is taken" --limit 2
say git contextfs list
say git contextfs status
git add .contextfs .gitattributes && git commit -qm "Team memory"
printf '\nThe memories are plain files, committed with the code:\n'
git ls-files .contextfs
