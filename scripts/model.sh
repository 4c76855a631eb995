#!/usr/bin/env bash
# model.sh rebuilds internal/embed/wordvec.bin, the word vectors of the built-in
# embedder (docs/EMBEDDER.md): it gathers a corpus of public technical text
# from Debian packages, trains fastText skip-gram vectors on it with a fixed
# seed and one thread, and packs them into the compact table the binaries
# embed. Run it as `make model`. Nothing here runs in CI: the artifact is
# committed, and this script regenerates it bit for bit from the same
# package versions (it fails if apt cannot supply one of them).
#
# Needs: Debian bookworm with apt's English descriptions
# (`apt-get update -o Acquire::Languages=en`, as root, once), and the
# Debian packages fasttext and html2text. The packages of the corpus are
# downloaded with apt-get download and unpacked into the work directory,
# never installed.
set -euo pipefail
cd "$(dirname "$0")/.."

# The work directory holds some 400 MB (packages, text, corpus, model);
# outside the module, so that no go command walks the Go sources in it.
WORK=${MODEL_WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/contextfs-model}
OUT=${MODEL_OUT:-internal/embed/wordvec.bin}
GO_OUT=${MODEL_GO_OUT:-internal/embed/wordvec_sum.go}
GO=${GO:-go}

# The corpus: documentation of widely used software, pinned to bookworm's
# versions so that the corpus, and with it the artifact, is the same
# everywhere. Licences in docs/EMBEDDER.md.
PKGS=(
	postgresql-doc-15=15.20-0+deb12u1
	python3.11-doc=3.11.2-6+deb12u9
	apache2-doc=2.4.71-1~deb12u1
	git-doc=1:2.39.5-0+deb12u3
	nodejs-doc=18.20.4+dfsg-1~deb12u3
	docker-doc=20.10.24+dfsg1-1+deb12u1
	sqlite3-doc=3.40.1-2+deb12u2
	haproxy-doc=2.6.12-1+deb12u4
	nginx-doc=1.22.1-9+deb12u11
	python-django-doc=3:3.2.25-0+deb12u7
	python-flask-doc=2.2.2-3
	python-kafka-doc=2.0.2-3
	python-ansible-runner-doc=2.3.1-2
	debian-reference-en=2.100
	golang-1.19-doc=1.19.8-2
	golang-1.19-src=1.19.8-2
)

# Training parameters (docs/EMBEDDER.md says why these).
FT_ARGS=(-dim 64 -epoch 3 -minCount 5 -minn 3 -maxn 4 -bucket 200000 -ws 6 -neg 5 -lr 0.05 -t 1e-4 -thread 1 -seed 1 -verbose 1)

for tool in fasttext html2text apt-get dpkg-deb; do
	command -v "$tool" >/dev/null || { echo "model.sh: $tool not found (apt-get install fasttext html2text)" >&2; exit 1; }
done
TRANS=$(ls /var/lib/apt/lists/*_debian_dists_bookworm_main_i18n_Translation-en* 2>/dev/null | head -1 || true)
if [ -z "$TRANS" ]; then
	echo "model.sh: no English package descriptions; run as root: apt-get update -o Acquire::Languages=en" >&2
	exit 1
fi

export LC_ALL=C TZ=UTC
mkdir -p "$WORK/debs" "$WORK/text"

echo "== packages"
for p in "${PKGS[@]}"; do
	name=${p%%=*}
	if ! ls "$WORK/debs/${name}_"*.deb >/dev/null 2>&1; then
		(cd "$WORK/debs" && apt-get download -q "$p")
	fi
done
rm -rf "$WORK/root"
mkdir -p "$WORK/root"
for d in "$WORK"/debs/*.deb; do
	dpkg-deb -x "$d" "$WORK/root"
done
(cd "$WORK/debs" && sha256sum *.deb) > "$WORK/packages.sha256"

echo "== text"
# Package descriptions: the long English description of every package in
# bookworm main.
/usr/lib/apt/apt-helper cat-file "$TRANS" |
	awk '/^Description-en:/ { sub(/^Description-en: */, ""); print; next }
	     /^ / { sub(/^ /, ""); if ($0 == ".") print ""; else print; next }
	     { print "" }' > "$WORK/text/00-descriptions.txt"

# HTML and Markdown documentation, in a fixed order. Sphinx's _sources
# repeat the HTML, as do the AsciiDoc sources of git-doc; other languages
# of Apache's manual are left out.
find "$WORK/root/usr/share/doc" -type f \( -name '*.html' -o -name '*.htm' -o -name '*.html.en' \) \
	! -path '*/_sources/*' ! -path '*/_static/*' ! -name 'genindex*' ! -name 'search.html' |
	grep -v -E '/apache2-doc/manual/(da|de|es|fr|ja|ko|pt-br|ru|tr|zh-cn)/' | sort > "$WORK/html.list"
# html2text is given at most 2 GB: it has been seen to take 13 GB on a
# page it cannot parse. Given several files it heads each with its path,
# which names the work directory: those lines are dropped, or the corpus
# would depend on where it was built.
(ulimit -v 2000000; xargs -a "$WORK/html.list" -n 100 html2text -rcfile /dev/null -nobs -utf8 -width 1000) 2>/dev/null |
	sed -e '/^###### .* ######$/d' > "$WORK/text/10-html.txt" || true
find "$WORK/root/usr/share/doc" -type f \( -name '*.md' -o -name '*.md.gz' -o -name '*.rst' -o -name '*.rst.gz' \) \
	! -path '*/_sources/*' | sort > "$WORK/md.list"
: > "$WORK/text/20-markdown.txt"
while read -r f; do
	case $f in *.gz) zcat "$f" ;; *) cat "$f" ;; esac
	echo
done < "$WORK/md.list" >> "$WORK/text/20-markdown.txt"

# The Go toolchain's comments: doc comments and explanations in the
# standard library and the tools, test data and directives left out.
find "$WORK/root/usr/share/go-1.19/src" -type f -name '*.go' ! -path '*/testdata/*' ! -path '*/vendor/*' | sort |
	xargs sed -n -e '/^[[:space:]]*\/\/go:/d' -e 's|^[[:space:]]*// \{0,1\}||p' > "$WORK/text/30-go-comments.txt"

echo "== corpus"
$GO run ./cmd/contextfs-model corpus -max-tokens 3000000,1500000,600000,800000 -out "$WORK/corpus.txt" "$WORK"/text/*.txt

echo "== train (fastText ${FT_ARGS[*]})"
start=$(date +%s)
fasttext skipgram -input "$WORK/corpus.txt" -output "$WORK/ft" "${FT_ARGS[@]}"
echo "trained in $(( $(date +%s) - start )) s"

echo "== pack"
$GO run ./cmd/contextfs-model pack -words 60000 -dim 64 -vec "$WORK/ft.vec" -corpus "$WORK/corpus.txt" -out "$OUT" -go-out "$GO_OUT"
sha256sum "$OUT" "$WORK/corpus.txt" "$WORK/ft.bin"
