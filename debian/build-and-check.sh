#!/bin/sh
# Builds the Debian packages from a clean copy of the committed tree, unpacks
# them into a scratch root, and runs the installed-copy consumers (pkg-config
# C and C++, CMake, Python ctypes) against that root; then lintian, when it
# is installed. Needs dpkg-dev, debhelper and fakeroot (lintian optional):
#   apt-get install dpkg-dev debhelper fakeroot lintian
# Usage, from the source tree: sh debian/build-and-check.sh [WORKDIR]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/kestrel-deb.XXXXXX")}
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
upstream=${version%-*}
mkdir -p "$work"
rm -rf "$work/kestrel-$upstream" "$work/root"
git -C "$src" archive --format=tar --prefix="kestrel-$upstream/" HEAD | tar -x -C "$work"
(cd "$work/kestrel-$upstream" && dpkg-buildpackage -us -uc -b)
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
root=$work/root
for p in libkestrel-dnnl3 libkestrel-dnnl-dev; do
    dpkg-deb -x "$work/${p}_${version}_${arch}.deb" "$root"
done
echo "contents:"
(cd "$root" && find . -type f -o -type l | sort)
status=0
for t in pkgconfig_consumer cmake_consumer dlopen_python; do
    echo "installed-package check: $t"
    KESTREL_INSTALLED_PREFIX=$root/usr KESTREL_INSTALLED_LIBDIR=$root/usr/lib/$multiarch \
        KESTREL_INSTALLED_INCLUDEDIR=$root/usr/include srcdir=$src \
        sh "$src/test/api/$t.sh" || status=1
done
if command -v lintian > /dev/null 2>&1; then
    # Errors fail the check; warnings are printed.
    lintian --fail-on error "$work"/*_"${version}"_"${arch}".changes || status=1
fi
exit $status
