#!/bin/sh
# Builds and installs the C ABI of classad-rs under PREFIX:
#   PREFIX/include/classad.h
#   PREFIX/lib/libclassad_capi.a, libclassad_capi.so.MAJOR.MINOR.PATCH with
#     the links libclassad_capi.so.MAJOR and libclassad_capi.so
#   PREFIX/lib/pkgconfig/classad-capi.pc
# Usage: capi/install.sh PREFIX   (e.g. /usr/local, or $HOME/.local)
# CLASSAD_CAPI_PROFILE=dev builds without optimisation (faster to build);
# the default is the release build.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 PREFIX" >&2; exit 2; }
prefix=$1
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
profile=${CLASSAD_CAPI_PROFILE:-release}
case $profile in dev) out=debug ;; *) out=$profile ;; esac
target=${CARGO_TARGET_DIR:-$repo/target}
version() { sed -n "s/^pub const CLASSAD_ABI_VERSION_$1: u32 = \([0-9]*\);/\1/p" "$here/src/version.rs"; }
major=$(version MAJOR); abi="$major.$(version MINOR).$(version PATCH)"

echo "building classad-capi ($profile)" >&2
(cd "$repo" && cargo build --locked --quiet -p classad-capi --profile "$profile")
mkdir -p "$prefix/include" "$prefix/lib/pkgconfig"
cp "$here/include/classad.h" "$prefix/include/"
cp "$target/$out/libclassad_capi.a" "$prefix/lib/"
cp "$target/$out/libclassad_capi.so" "$prefix/lib/libclassad_capi.so.$abi"
ln -sf "libclassad_capi.so.$abi" "$prefix/lib/libclassad_capi.so.$major"
ln -sf "libclassad_capi.so.$major" "$prefix/lib/libclassad_capi.so"
cat > "$prefix/lib/pkgconfig/classad-capi.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: classad-capi
Description: The C ABI of classad-rs: ClassAds, matching and the negotiator
Version: $abi
Cflags: -I\${includedir}
Libs: -L\${libdir} -lclassad_capi
Libs.private: -lpthread -ldl -lm
PC
echo "installed under $prefix (pkg-config: PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs classad-capi)" >&2
