#!/bin/bash
# Build every libFuzzer target fuzz/fuzz_*.c with clang and run each briefly.
# A target names what it links in comment lines:
#   FUZZ_SOURCES: core/output/col_parse.c core/base/xmalloc.c
#   FUZZ_LIBS: -ljson-c
# Usage: fuzz/run.sh SRCDIR BUILDDIR; FUZZ_SECONDS (default 20) per target.
# Prints one TAP-ish line per target and a closing "N passed, N failed".
set -u
src=${1:-.}
build=${2:-.}
secs=${FUZZ_SECONDS:-20}
out="$build/fuzz/build"
mkdir -p "$out"
cc=${FUZZ_CC:-clang}
pass=0
fail=0
for f in "$src"/fuzz/fuzz_*.c; do
	[ -e "$f" ] || continue
	name=$(basename "$f" .c)
	srcs=$(sed -n 's/^[ *]*FUZZ_SOURCES:[ ]*//p' "$f" | tr '\n' ' ')
	libs=$(sed -n 's/^[ *]*FUZZ_LIBS:[ ]*//p' "$f" | tr '\n' ' ')
	paths=()
	for s in $srcs; do
		if [ -e "$src/$s" ]; then paths+=("$src/$s"); else paths+=("$build/$s"); fi
	done
	# shellcheck disable=SC2086
	if ! "$cc" -g -O1 -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=undefined -D_GNU_SOURCE -DFUZZING \
	    -I"$src/include" -I"$src/core" -I"$src/lib" -I"$build" -I"$src" -I"$build/core" \
	    $(for s in $srcs; do printf -- '-I%s ' "$src/$(dirname "$s")" "$build/$(dirname "$s")"; done) \
	    -o "$out/$name" "$f" "${paths[@]}" $libs >"$out/$name.build.log" 2>&1; then
		echo "not ok - $name: build failed"; sed 's/^/# /' "$out/$name.build.log" | tail -20
		fail=$((fail + 1)); continue
	fi
	corpus="$out/$name.corpus"
	mkdir -p "$corpus"
	[ -d "$src/fuzz/corpus/$name" ] && cp -n "$src/fuzz/corpus/$name"/* "$corpus"/ 2>/dev/null
	if "$out/$name" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
	    -artifact_prefix="$out/$name-" "$corpus" >"$out/$name.log" 2>&1; then
		echo "ok - $name ($(awk "/stat::number_of_executed_units/ {print \$2}" "$out/$name.log") runs in ${secs} s)"
		pass=$((pass + 1))
	else
		echo "not ok - $name: crash, see $out/$name.log"; tail -30 "$out/$name.log" | sed 's/^/# /'
		fail=$((fail + 1))
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
