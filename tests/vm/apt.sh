# shellcheck shell=bash
# The VM tier's apt: Debian's mirror with a private configuration (its own
# sources list, state and cache under the tier's cache), so the machine's
# apt is neither read for packages nor changed.  Sourced by run.sh and
# arm64-build.sh; needs $cache.

# Debian's mirror, as this machine's own apt configuration names it.
mirror=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)$/\1/p' \
    /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(sed -n \
    's/^deb \(\[[^]]*\] \)*\(http[^ ]*\/debian\) .*/\2/p' \
    /etc/apt/sources.list 2>/dev/null | head -1)
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# apt_opts SUITE ARCHS [NAME]: set $opts, the options for apt-get and
# apt-cache: SUITE of the mirror, for ARCHS only, with state under
# $cache/apt/NAME (default SUITE).  The status file stays empty: apt
# believes nothing is installed, so --download-only fetches a package's
# whole dependency closure (what a sysroot needs).
apt_opts() {
	# shellcheck disable=SC2154
	local d=$cache/apt/${3:-$1} a
	mkdir -p "$d/etc/sources.list.d" "$d/etc/preferences.d" \
	    "$d/state/lists/partial" "$d/cache/archives/partial"
	: >>"$d/state/status"
	echo "deb [signed-by=$keyring] $mirror $1 main" >"$d/etc/sources.list"
	opts=(-o "Dir::Etc::SourceList=$d/etc/sources.list"
	    -o "Dir::Etc::SourceParts=$d/etc/sources.list.d"
	    -o "Dir::Etc::Preferences=$d/etc/preferences"
	    -o "Dir::Etc::PreferencesParts=$d/etc/preferences.d"
	    -o "Dir::State=$d/state" -o "Dir::State::status=$d/state/status"
	    -o "Dir::Cache=$d/cache" -o "APT::Sandbox::User=root"
	    -o "Debug::NoLocking=1")
	# the first of ARCHS is apt's own: a name without :ARCH is its
	opts+=(-o "APT::Architecture=${2%% *}")
	for a in $2; do opts+=(-o "APT::Architectures::=$a"); done
}
