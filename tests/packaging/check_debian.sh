#!/usr/bin/env bash
# Builds the Debian packages of the source tree (debian/) with dpkg-buildpackage, installs them
# into a scratch root with dpkg -x, and checks what each holds and that they work there: the
# tools run, a C program builds with nothing but pkg-config (the packaged pgdds.pc) and runs on 2
# ranks under the packaged pgdds-run, and the Python package imports the packaged library.
#   check_debian.sh SRCDIR CONSUMER_C
set -euo pipefail
src=$(cd "$1" && pwd) consumer=$2
command -v dpkg-buildpackage >/dev/null || { echo "FAIL: dpkg-buildpackage is missing (dpkg-dev)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
tree=$work/libpgdds-$version
mkdir -p "$tree"
# The tree as it is, build directories left out: what git tracks and what it does not ignore.
(cd "$src" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$tree")
cd "$tree"
echo "building the packages of libpgdds $version"
DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1 ||
    { tail -n 80 "$work/build.log"; echo "FAIL: dpkg-buildpackage"; exit 1; }
fail=0
say() { echo "FAIL: $*"; fail=1; }
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
root=$work/root
mkdir -p "$root"
for pkg in libpgdds0 libpgdds-dev pgdds-tools python3-pgdds; do
    deb=$(ls "$work"/${pkg}_"$version"_*.deb 2>/dev/null | head -n 1)
    [ -n "$deb" ] || { say "no package $pkg"; continue; }
    dpkg-deb -x "$deb" "$root"
    contents=$(dpkg-deb -c "$deb")
    case $pkg in
    libpgdds0) want=("usr/lib/$arch/libpgdds.so.0" "usr/lib/$arch/libpgdds_fortran.so.0" "usr/lib/$arch/libpgdds_shmem.so.0") ;;
    libpgdds-dev) want=("usr/include/pgdds/pgdds.h" "usr/include/pgdds/fortran/pgdds.mod" "usr/lib/$arch/libpgdds.so "
                        "usr/lib/$arch/pkgconfig/pgdds.pc" "usr/lib/$arch/cmake/pgdds/pgddsConfig.cmake"
                        "usr/share/man/man3/pgdds_put.3") ;;
    pgdds-tools) want=("usr/bin/pgdds-run" "usr/bin/pgdds-info" "usr/bin/pgdds-oshcc" "usr/share/man/man1/pgdds-run.1") ;;
    python3-pgdds) want=("usr/lib/python3/dist-packages/pgdds/__init__.py") ;;
    esac
    for f in "${want[@]}"; do grep -q "\./$f" <<<"$contents" || say "$pkg lacks /$f"; done
    echo "$pkg: $(grep -c '^-' <<<"$contents") files, depends: $(dpkg-deb -f "$deb" Depends)"
done
dpkg-deb -f "$work"/libpgdds-dev_"$version"_*.deb Depends | grep -q "libpgdds0 (= $version)" ||
    say "libpgdds-dev does not depend on libpgdds0 (= $version)"
dpkg-deb -f "$work"/libpgdds0_"$version"_*.deb Depends | grep -q "libfabric1" || say "libpgdds0 does not depend on libfabric1"

export LD_LIBRARY_PATH=$root/usr/lib/$arch
"$root/usr/bin/pgdds-info" >/dev/null || say "the packaged pgdds-info does not run"
flags=$(PKG_CONFIG_PATH=$root/usr/lib/$arch/pkgconfig pkg-config --cflags --libs pgdds) || say "pkg-config pgdds"
cc "$consumer" $flags -o "$work/consumer" || say "the consumer does not build against the packaged pgdds.pc"
[ -x "$work/consumer" ] && { PGDDS_TRANSPORT=shm "$root/usr/bin/pgdds-run" -n 2 "$work/consumer" ||
    say "the consumer does not run under the packaged pgdds-run"; }
PYTHONPATH=$root/usr/lib/python3/dist-packages PGDDS_LIBRARY=$root/usr/lib/$arch/libpgdds.so.0 /usr/bin/python3 -c \
    'import pgdds, sys; sys.exit(0 if pgdds.version() else 1)' || say "the packaged Python package does not import"
[ "$fail" = 0 ] && echo "debian packages: passed"
exit "$fail"
