#!/usr/bin/env bash
# desktop-entry.sh BINARY < foya.desktop > out: the menu entry with its
# "Exec=foya" line set to BINARY, an absolute path, quoted as the Desktop
# Entry Specification says ("The Exec key"): an argument holding a reserved
# character goes in double quotes, with ", `, $ and \ escaped by a
# backslash inside them; then the string escape doubles every backslash,
# and a literal % is written %%. So `make install PREFIX='/path with space'`
# writes an entry that runs.
set -euo pipefail

bin=${1:?usage: desktop-entry.sh ABSOLUTE-PATH-OF-FOYA}
case $bin in
/*) ;;
*) echo "desktop-entry.sh: $bin is not an absolute path" >&2; exit 2 ;;
esac
case $bin in
*$'\n'* | *$'\t'* | *$'\r'*)
	echo "install: the path $bin holds a tab or a line break, which a menu entry's Exec cannot hold: choose a PREFIX without one" >&2
	exit 2
	;;
esac

arg=$bin
reserved=$' \t"\'\\><~|&;$*?#`()'
if [[ $bin == *["$reserved"]* ]]; then
	arg=${arg//\\/\\\\}
	arg=${arg//\"/\\\"}
	arg=${arg//\`/\\\`}
	arg=${arg//\$/\\\$}
	arg="\"$arg\""
fi
arg=${arg//\\/\\\\} # the string escape, applied before the quoting rule when read
arg=${arg//%/%%}

found=0
while IFS= read -r line || [[ -n $line ]]; do
	if [[ $line == Exec=foya ]]; then
		printf 'Exec=%s\n' "$arg"
		found=$((found + 1))
	else
		printf '%s\n' "$line"
	fi
done
if [[ $found != 1 ]]; then
	echo "desktop-entry.sh: the template has $found lines Exec=foya; want exactly one" >&2
	exit 1
fi
