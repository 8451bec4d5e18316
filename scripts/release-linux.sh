#!/usr/bin/env bash
# release-linux.sh VERSION OUTDIR: the Linux job of .github/workflows/release.yml,
# for the architecture of the machine it runs on (go env GOARCH: the workflow
# runs it on an amd64 and an arm64 runner; the desktop binary links GTK and
# WebKitGTK with cgo, so it is built natively, not cross-compiled).
#
# It builds the desktop binary with VERSION linked in (a tag's v is dropped),
# then into OUTDIR:
#   foya_VERSION_ARCH.deb         make package's .deb of that binary
#   foya-VERSION-1.RPMARCH.rpm    make package-rpm's .rpm of it (x86_64, aarch64)
#   foya-VERSION-linux-ARCH.tar.gz  bin/foya, share/applications/foya.desktop
#                                 and share/icons/hicolor/*/apps/foya.png under
#                                 one folder, to unpack into ~/.local or /usr/local
#   SHA256SUMS                    of those three, checked with sha256sum -c
#
# Needs the front end built (frontend/dist, make frontend), Go, the GTK and
# WebKitGTK headers and ImageMagick (make deps-system). make test-release-linux
# runs it into a temporary folder as a dry run and checks what it made.
set -euo pipefail

usage="usage: scripts/release-linux.sh VERSION OUTDIR (VERSION like 1.2.3, 1.2.3-rc.1 or v1.2.3)"
[[ $# == 2 ]] || { echo "$usage" >&2; exit 2; }
version=${1#v}
out=$2
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$ ]]; then
	echo "release-linux.sh: version '$1' is not MAJOR.MINOR.PATCH with an optional -PRERELEASE" >&2
	exit 2
fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [[ ! -f frontend/dist/index.html ]]; then
	echo "release-linux.sh: frontend/dist/index.html is missing: build the front end first (make frontend)" >&2
	exit 1
fi
GO=${GO:-go}
arch=$("$GO" env GOARCH)
mkdir -p "$out"
out=$(cd "$out" && pwd)
if compgen -G "$out/foya*" >/dev/null || [[ -e $out/SHA256SUMS ]]; then
	echo "release-linux.sh: $out already holds packages: give an empty folder" >&2
	exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The version, the commit and its date, linked in as make build does.
ldflags=$(scripts/release-version.sh ldflags "$version")
epoch=$(git log -1 --format=%ct)
echo "release-linux.sh: foya $version for linux/$arch into $out ($ldflags)"
"$GO" build -tags desktop,production,webkit2_41 -ldflags "$ldflags" -o "$work/foya" .
got=$("$work/foya" --version | head -n1)
if [[ $got != "foya $version (commit "???????*", "????-??-??")" ]]; then
	echo "release-linux.sh: the binary says '$got'; want 'foya $version (commit …, date)'" >&2
	exit 1
fi

# The .deb and the .rpm: the Makefile's targets, given this binary (-o build:
# it is built already) and this folder.
CGO_ENABLED=0 "$GO" build -ldflags "$ldflags" -o "$work/foya-sandbox" ./cmd/foya-sandbox

make --no-print-directory -o build package package-rpm BIN="$work/foya" HELPER="$work/foya-sandbox" PKG_DIR="$out"
# A pre-release's packages carry ~ in their version (it sorts before the
# release in dpkg and rpm); their file names take the tag's -, a character
# every release page and download keeps as it is.
for f in "$out"/*~*; do
	if [[ -e $f ]]; then mv "$f" "${f//\~/-}"; fi
done

# The tarball, the same bytes for the same commit: sorted names, root's
# files, the commit's time, gzip without a name or time.
top=foya-$version-linux-$arch
stage=$work/$top
install -Dm755 "$work/foya" "$stage/bin/foya"
install -Dm755 "$work/foya-sandbox" "$stage/lib/foya/foya-sandbox"
install -Dm644 build/linux/foya.desktop "$stage/share/applications/foya.desktop"
for png in build/linux/icons/hicolor/*/apps/foya.png; do
	install -Dm644 "$png" "$stage/share/icons/${png#build/linux/icons/}"
done
tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
	--format=gnu -cf - "$top" | gzip -9n >"$out/$top.tar.gz"

cd "$out"
sha256sum foya_*.deb foya-*.rpm "$top.tar.gz" >SHA256SUMS
sha256sum --strict -c SHA256SUMS
ls -l "$out"
