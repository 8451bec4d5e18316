#!/usr/bin/env bash
# release-version.sh ldflags VERSION
#   prints the -ldflags that link VERSION (a tag's v dropped), HEAD's commit
#   (its first 7 hex digits, -dirty when tracked files other than wails.json
#   differ) and that
#   commit's date (UTC) into the binary, as make build does: foya --version
#   and the About dialog show them.
# release-version.sh wails VERSION
#   sets wails.json's info.productVersion to VERSION without its pre-release
#   part (Windows' version resource holds numbers only), which wails build
#   puts in the .exe's version resource and the macOS app's Info.plist.
# The release workflow's jobs call it; scripts/release-linux.sh too.
set -euo pipefail

usage="usage: scripts/release-version.sh ldflags|wails VERSION (like 1.2.3, 1.2.3-rc.1 or v1.2.3)"
[[ $# == 2 ]] || { echo "$usage" >&2; exit 2; }
version=${2#v}
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$ ]]; then
	echo "release-version.sh: version '$2' is not MAJOR.MINOR.PATCH with an optional -PRERELEASE" >&2
	exit 2
fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."

case $1 in
ldflags)
	commit=$(git rev-parse --verify HEAD)
	commit=${commit:0:7}
	# wails.json is left out: the workflow sets its productVersion (below)
	# before it builds, which is not a change to the source.
	git diff --quiet HEAD -- . ':(exclude)wails.json' || commit="$commit-dirty"
	date=$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%d)
	# The sandbox helper's stamp, as make build links it into foya and
	# cmd/foya-sandbox: the packaged foya starts the packaged helper.
	stamp=$(scripts/sandbox-stamp.sh)
	echo "-X foya/backend/kernel.Version=$version -X foya/backend/kernel.BuildCommit=$commit -X foya/backend/kernel.BuildDate=$date -X foya/backend/sandbox.HelperStamp=$stamp"
	;;
wails)
	FOYA_PRODUCT_VERSION=${version%%-*} node -e '
		const fs = require("fs");
		const j = JSON.parse(fs.readFileSync("wails.json", "utf8"));
		j.info.productVersion = process.env.FOYA_PRODUCT_VERSION;
		fs.writeFileSync("wails.json", JSON.stringify(j, null, 2) + "\n");
	'
	echo "wails.json: productVersion ${version%%-*}"
	;;
*)
	echo "$usage" >&2
	exit 2
	;;
esac
