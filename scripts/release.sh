#!/bin/sh
# release.sh: build the release archives of contextfs, reproducibly.
# `make release` runs it with VERSION, COMMIT, LDFLAGS, TAGS, DIST and
# PLATFORMS set; docs/INSTALL.md says how releases are cut.
#
# For each PLATFORM (GOOS/GOARCH) it writes
#   $DIST/contextfs-$VERSION-$GOOS-$GOARCH.tar.gz
# holding contextfs-$VERSION-$GOOS-$GOARCH/ with bin/ (the four
# programs), share/man/man1/ and the bash, zsh and fish completions laid
# out as under a PREFIX, and README.md; then $DIST/SHA256SUMS.
#
# The same commit, Go and C compiler give byte-identical archives: paths
# are trimmed, the Go build ID and VCS stamp left out, the manual's date
# and every file's time are SOURCE_DATE_EPOCH (the commit's time), owners
# are 0, entries sorted, and gzip records no name or time.
set -eu

: "${GO:=go}" "${TAGS:=sqlite_fts5}" "${DIST:=dist}" "${VERSION:?}" "${LDFLAGS:?}"
: "${SOURCE_DATE_EPOCH:=$(git log -1 --format=%ct 2>/dev/null || echo 0)}"
export SOURCE_DATE_EPOCH CGO_ENABLED=1
host="$($GO env GOOS)/$($GO env GOARCH)"
: "${PLATFORMS:=$host}"
programs="git-contextfs git-contextfs-mcp git-contextfs-embed git-contextfs-serve"

case "$VERSION" in
*-dirty) echo "release: warning: the work tree has changes; $VERSION is no release" >&2 ;;
esac

# ccFor prints the C compiler cgo needs for platform $1: CC for the
# machine's own, else CC_<os>_<arch> or the Debian cross compiler's name.
ccFor() {
	if [ "$1" = "$host" ]; then
		echo "${CC:-gcc}"
		return
	fi
	var="CC_$(echo "$1" | tr / _)"
	eval "cc=\${$var:-}"
	if [ -z "$cc" ]; then
		case "$1" in
		linux/arm64) cc=aarch64-linux-gnu-gcc ;;
		linux/amd64) cc=x86_64-linux-gnu-gcc ;;
		*) cc=none ;;
		esac
	fi
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "release: $1 needs a C compiler for cgo (SQLite, tree-sitter); $cc is not installed." >&2
		echo "  On Debian: apt-get install gcc-aarch64-linux-gnu (linux/arm64) or gcc-x86-64-linux-gnu (linux/amd64);" >&2
		echo "  or set $var to a cross compiler; or build only this machine's: make release PLATFORMS=$host" >&2
		exit 1
	fi
	echo "$cc"
}

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

# build PLATFORM PROGRAM DIR [TAG] builds PROGRAM for PLATFORM into DIR,
# with build tag TAG besides TAGS.
build() {
	CC="$(ccFor "$1")" GOOS="${1%/*}" GOARCH="${1#*/}" \
		$GO build -tags "$TAGS${4:+ $4}" -trimpath -buildvcs=false -ldflags "$LDFLAGS -buildid=" \
		-o "$3/$2" "./cmd/$2"
}

# The manual pages and completion scripts are the same on every platform:
# this machine's git-contextfs writes them.
shared="$stage/shared"
build "$host" git-contextfs "$stage/host"
# The manual pages come from the generator build (-tags manpages: cobra/doc),
# which no archive holds.
build "$host" git-contextfs "$stage/gen" manpages
"$stage/gen/git-contextfs" man "$shared/share/man/man1" 2>/dev/null
mkdir -p "$shared/share/bash-completion/completions" "$shared/share/zsh/site-functions" \
	"$shared/share/fish/vendor_completions.d"
"$stage/host/git-contextfs" completion bash >"$shared/share/bash-completion/completions/git-contextfs"
"$stage/host/git-contextfs" completion zsh >"$shared/share/zsh/site-functions/_git-contextfs"
"$stage/host/git-contextfs" completion fish >"$shared/share/fish/vendor_completions.d/git-contextfs.fish"
cp README.md "$shared/README.md"

mkdir -p "$DIST"
for platform in $PLATFORMS; do
	name="contextfs-$VERSION-${platform%/*}-${platform#*/}"
	root="$stage/$name"
	mkdir -p "$root/bin"
	cp -R "$shared/." "$root/"
	for p in $programs; do
		if [ "$platform" = "$host" ] && [ "$p" = git-contextfs ]; then
			cp "$stage/host/$p" "$root/bin/$p"
		else
			build "$platform" "$p" "$root/bin"
		fi
	done
	chmod -R u=rwX,go=rX "$root"
	chmod 0755 "$root"/bin/*
	tar -C "$stage" --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
		--format=gnu -cf - "$name" | gzip -n -9 >"$DIST/$name.tar.gz"
	echo "release: wrote $DIST/$name.tar.gz" >&2
done
(cd "$DIST" && sha256sum -- contextfs-"$VERSION"-*.tar.gz >SHA256SUMS)
echo "release: wrote $DIST/SHA256SUMS" >&2
