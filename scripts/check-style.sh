#!/bin/sh
# The two rules of docs/HACKING.md a reader notices first, held by a check
# because they drift otherwise:
#   - one declaration style: a type and its declarator one space apart
#     ("struct foo *p;", "int\tn;" is the other style), as .clang-format
#     writes them; this covers locals, members, globals and prototypes of
#     every C file of the tree but the frozen ABI copies in tests/abi/;
#   - small files: no C file of the agent or its plugins over 800 lines.
# Output is TAP; run by `make check`, or by hand: sh scripts/check-style.sh
set -u

. "$(dirname "$0")/check_lib.sh"

cd "$top" || exit 1
files=$(find bench core docs fuzz include lib plugins tests \
    -path tests/abi -prune -o -name '*.[ch]' -print | sort)

# A line that begins, after its indentation, with a type of one or more
# words, then a tab, then a declarator ending a declaration; statements
# that start with a keyword are not declarations.
tab=$(printf '\t')
bad=$(printf '%s\n' $files | xargs grep -nE \
    "^$tab*[A-Za-z_][A-Za-z0-9_]*( [A-Za-z_][A-Za-z0-9_]*)*$tab[$tab ]*[*(]*[A-Za-z_][A-Za-z0-9_]*" \
    /dev/null | grep -vE \
    ":[0-9]+:$tab*(return|case|goto|else|if|while|for|switch|do)[$tab ]" |
    head -20)
if [ -z "$bad" ]; then
	ok "declarations put one space between the type and the name"
else
	notok "declarations put one space between the type and the name" \
	    "aligned with tabs (write \"type name\"):" "$bad"
fi

bad=$(printf '%s\n' $files | grep -E '^(core|plugins|lib|include)/' |
    xargs wc -l | awk '$2 != "total" && $1 > 800 { print $2 ": " $1 " lines" }')
if [ -z "$bad" ]; then
	ok "no C file of the agent or its plugins is over 800 lines"
else
	notok "no C file of the agent or its plugins is over 800 lines" "$bad"
fi

echo "1..$n"
exit $fail
