#!/usr/bin/env bash
# compare.sh OLD NEW [SIZE] [RUNS] — two builds of git-contextfs side by side
# in the same run: each gets its own copy of one synthetic corpus (so a cache
# schema change in one never rebuilds the other's), a warm-up, then RUNS
# interleaved runs of the same commands. Prints the median wall time and the
# median CPU time (user+sys, from getrusage via GNU time) of each.
#
# Use it to check that a change keeps the CLI within noise of a baseline:
#   git worktree add /tmp/base main && (cd /tmp/base && make build)
#   make build && scripts/compare.sh /tmp/base/bin/git-contextfs bin/git-contextfs 10000 15
set -euo pipefail
old=$(realpath "$1") new=$(realpath "$2") size=${3:-10000} runs=${4:-15}
command -v /usr/bin/time >/dev/null || { echo "compare.sh: needs GNU time (/usr/bin/time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CONTEXTFS_WATCH=off GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
# No user store or registered repositories of the person running it.
export XDG_DATA_HOME=$work/xdg-data XDG_CONFIG_HOME=$work/xdg-config CONTEXTFS_USER_DIR=$work/xdg-data/user
go run -tags sqlite_fts5 ./cmd/contextfs-bench -sizes "$size" -corpus "$work/corpus" >/dev/null
cp -r "$work/corpus" "$work/old" && cp -r "$work/corpus" "$work/new"

# one BIN DIR NAME ARGS...: runs one command, appends "wall cpu" to NAME.
one() {
  local bin=$1 dir=$2 name=$3
  shift 3
  /usr/bin/time -f '%e %U %S' -o "$work/t" "$bin" -C "$dir" "$@" >/dev/null 2>&1 || true
  awk '{printf "%.4f %.4f\n", $1, $2 + $3}' "$work/t" >>"$work/$name"
}
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f", m*1000}'; }

cmds=("search pooled connections retry" "list -n 20 --json" "status --json")
for side in old new; do # warm-up: build each side's cache
  bin=$old; [ $side = new ] && bin=$new
  "$bin" -C "$work/$side" search warm-up >/dev/null 2>&1 || true
done
for ((i = 0; i < runs; i++)); do
  for c in "${cmds[@]}"; do
    key=${c%% *}
    # shellcheck disable=SC2086
    one "$old" "$work/old" "old-$key" $c
    # shellcheck disable=SC2086
    one "$new" "$work/new" "new-$key" $c
  done
done
printf '%-8s %14s %14s %14s %14s %8s\n' command "old wall ms" "new wall ms" "old cpu ms" "new cpu ms" "cpu new/old"
for c in "${cmds[@]}"; do
  key=${c%% *}
  ow=$(cut -d' ' -f1 "$work/old-$key" | median) nw=$(cut -d' ' -f1 "$work/new-$key" | median)
  oc=$(cut -d' ' -f2 "$work/old-$key" | median) nc=$(cut -d' ' -f2 "$work/new-$key" | median)
  printf '%-8s %14s %14s %14s %14s %8s\n' "$key" "$ow" "$nw" "$oc" "$nc" "$(awk -v a="$nc" -v b="$oc" 'BEGIN{ if (b>0) printf "%.2f", a/b; else print "-" }')"
done
echo "($size memories, $runs runs each, interleaved; medians; CPU = user+sys)"
