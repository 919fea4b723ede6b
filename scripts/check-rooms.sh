#!/bin/sh
# The core's rooms keep their walls (docs/ARCHITECTURE.md, "The rooms of
# the tree"): each folder of core/ is a room with its own header, and files
# include the rooms they use by name ("config/configuration.h"; the only -I
# is core/).  This check fails when
#   - core/gprofiler.h includes a header of the tree (it is the shared
#     vocabulary: system headers and <gprofiler/plugin.h> only);
#   - a core file includes a core header other than by its room's name;
#   - the rooms' includes form a loop (two rooms including each other, or a
#     longer cycle): they must stack, base/ at the bottom, the agent (the
#     root folder) at the top;
#   - base/ includes another room, or a room includes the agent's header;
#   - a plugin includes a core header (plugins see include/gprofiler/ only).
# The perf plugin has rooms of its own (plugins/perf/sampler/, .../sym/;
# each subfolder of plugins/perf/ is one) around its glue (the files of
# plugins/perf/ itself).  This check also fails when
#   - a perf room includes a header of another perf room or of the glue
#     (its own headers, config.h and the headers outside plugins/perf/
#     only);
#   - the glue includes a perf room's header other than by the room's name
#     ("sym/symbolize.h"; the glue's only -I of the plugin is plugins/perf).
# Output is TAP; run by `make check`, or by hand: sh scripts/check-rooms.sh
set -u

. "$(dirname "$0")/check_lib.sh"
core=$top/core

rooms=$(cd "$core" && for d in */; do
	[ -d "$d" ] && echo "${d%/}"
done)

# 1. gprofiler.h includes no header of the tree.
bad=$(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' \
    "$core/gprofiler.h" || true)
if [ -z "$bad" ]; then
	ok "core/gprofiler.h includes no sub-header"
else
	notok "core/gprofiler.h includes no sub-header" "$bad"
fi

# Every quoted include of a core file as "ROOM FILE TARGET" (ROOM "." is
# the root folder, the agent room; TARGET the room included, "-" for
# what is not a room: config.h, gprofiler.h, headers of tests).
edges=$(cd "$core" && find . -name '*.[ch]' ! -name '*.pb-c.*' | sort |
    while read -r f; do
	f=${f#./}
	case $f in
	*/*) room=${f%%/*} ;;
	*) room=. ;;
	esac
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' \
	    "$f" | while read -r inc; do
		case $inc in
		config.h | gprofiler.h) t=- ;;
		agent.h) t=. ;;
		core/*/*.pb-c.h) t=${inc#core/}; t=${t%%/*} ;;
		*/*) t=${inc%%/*}
		     [ -f "$inc" ] || t="?$inc" ;;
		# lib/: pure parsers shared with the plugins, below every room
		*) [ -f "$top/lib/$inc" ] && t=- || t="?$inc" ;;
		esac
		echo "$room $f $t"
	done
done)

# 2. Core headers are included by their room's name.
bad=$(echo "$edges" | awk '$3 ~ /^\?/ { print $2 ": \"" substr($3, 2) "\"" }')
if [ -z "$bad" ]; then
	ok "every core header is included by its room's name"
else
	notok "every core header is included by its room's name" \
	    "not a room's header (\"room/file.h\" with -I core only):" "$bad"
fi

# 3. base/ includes no other room.
bad=$(echo "$edges" | awk '$1 == "base" && $3 != "-" && $3 != "base" {
	print $2 " includes " $3 "/" }')
if [ -z "$bad" ]; then
	ok "base/ includes no other room"
else
	notok "base/ includes no other room" "$bad"
fi

# 4. No room includes the agent's header (the root folder is the top).
bad=$(echo "$edges" | awk '$1 != "." && $3 == "." { print $2 }')
if [ -z "$bad" ]; then
	ok "no room includes the agent room (core/agent.h)"
else
	notok "no room includes the agent room (core/agent.h)" "$bad"
fi

# 5. The rooms stack: no loop, of two rooms or more.
loop=$(echo "$edges" | awk '
	$3 != "-" && $3 !~ /^\?/ && $1 != $3 {
		k = $1 SUBSEP $3
		if (!(k in seen)) {
			seen[k] = $2
			adj[$1] = adj[$1] " " $3
		}
		node[$1] = 1; node[$3] = 1
	}
	function visit(r,    i, m, nb) {
		state[r] = 1
		path[++depth] = r
		m = split(adj[r], nb, " ")
		for (i = 1; i <= m; i++) {
			if (state[nb[i]] == 1) {
				for (j = depth; j >= 1; j--)
					if (path[j] == nb[i])
						break
				for (; j < depth; j++)
					print path[j] " -> " path[j + 1] \
					    " (" seen[path[j], path[j + 1]] ")"
				print r " -> " nb[i] " (" seen[r, nb[i]] ")"
				found = 1
				return
			}
			if (state[nb[i]] == 0) {
				visit(nb[i])
				if (found)
					return
			}
		}
		depth--
		state[r] = 2
	}
	END {
		for (r in node)
			if (!found && state[r] == 0)
				visit(r)
	}')
if [ -z "$loop" ]; then
	ok "no loop between the rooms of core/ ($(echo $rooms | tr ' ' ','))"
else
	notok "no loop between the rooms of core/" "$loop"
fi

# 6. Plugins reach the core only through <gprofiler/plugin.h>.
pat='gprofiler\.h|agent\.h'
for r in $rooms; do
	pat="$pat|$r/"
done
bad=$(cd "$top" && find plugins -name '*.[ch]' | sort | xargs grep -nE \
    "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"(\.\./)*(core/)?($pat)" \
    /dev/null | grep -v '"plugins/' || true)
if [ -z "$bad" ]; then
	ok "no plugin includes a core header"
else
	notok "no plugin includes a core header" "$bad"
fi

# Every quoted include of a file of plugins/perf/ as "ROOM FILE INCLUDE"
# (ROOM "." for the glue, the files of plugins/perf/ itself).
perf=$top/plugins/perf
perfrooms=$(cd "$perf" && for d in */; do
	[ -d "$d" ] && echo "${d%/}"
done)
perfedges=$(cd "$perf" && find . -name '*.[ch]' | sort | while read -r f; do
	f=${f#./}
	case $f in
	*/*) room=${f%%/*} ;;
	*) room=. ;;
	esac
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' \
	    "$f" | while read -r inc; do
		echo "$room $f $inc"
	done
done)

# inperf NAME: whether the glue or a perf room has a header NAME.
inperf() {
	[ -f "$perf/$1" ] && return 0
	for r in $perfrooms; do
		[ -f "$perf/$r/$1" ] && return 0
	done
	return 1
}

# 7. A perf room includes its own headers (and its generated skeletons,
# NAME.skel.h beside NAME.bpf.c), config.h and headers from outside
# plugins/perf/: never another room's nor the glue's, by any name.
bad=$(echo "$perfedges" | while read -r room f inc; do
	[ -n "$room" ] && [ "$room" != . ] || continue
	case $inc in
	config.h) continue ;;
	*.skel.h) [ -f "$perf/$room/${inc%.skel.h}.bpf.c" ] && continue ;;
	../* | plugins/perf/*) ;;
	*/*) [ -d "$perf/${inc%%/*}" ] || continue ;;
	*) [ -f "$perf/$room/$inc" ] && continue
	   inperf "$inc" || continue ;;
	esac
	echo "plugins/perf/$f: \"$inc\""
done)
if [ -z "$bad" ]; then
	ok "no perf room includes another perf room or the glue ($(echo $perfrooms | tr ' ' ','))"
else
	notok "no perf room includes another perf room or the glue" \
	    "a room includes its own headers only, as \"file.h\":" "$bad"
fi

# 8. The glue includes a perf room's header by the room's name only.
bad=$(echo "$perfedges" | while read -r room f inc; do
	[ "$room" = . ] || continue
	case $inc in
	../* | plugins/perf/*) ;;
	*/*.skel.h) [ -d "$perf/${inc%%/*}" ] || continue
	   [ -f "$perf/${inc%.skel.h}.bpf.c" ] && continue ;;
	*/*) [ -d "$perf/${inc%%/*}" ] || continue
	   [ -f "$perf/$inc" ] && continue ;;
	*) [ -f "$perf/$inc" ] && continue
	   inperf "$inc" || continue ;;
	esac
	echo "plugins/perf/$f: \"$inc\""
done)
if [ -z "$bad" ]; then
	ok "the perf glue includes its rooms' headers by the room's name"
else
	notok "the perf glue includes its rooms' headers by the room's name" \
	    "not a room's header (\"room/file.h\" with -I plugins/perf only):" \
	    "$bad"
fi

echo "1..$n"
exit $fail
