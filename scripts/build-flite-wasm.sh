#!/bin/sh
# Rebuilds src/synth/engines/flite/flite.wasm: Debian's flite 2.2 source (apt-get source flite) and the glue
# in resident.c, compiled to a wasm32-wasi library with no main program and no audio device. Needs Debian's
# clang-14, lld-14, wasi-libc and libclang-rt-14-dev-wasm32, and deb-src lines for the Debian archive: run
# as root, it installs the first and adds the second. The output is committed, so none of this is needed to
# build, test or run the service. OUT=path writes the library there instead (to compare a build with the
# committed one).
set -eu
HERE=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-"$HERE/src/synth/engines/flite/flite.wasm"}
GLUE="$HERE/src/synth/engines/flite/resident.c"
CLANG=${CLANG:-clang-14}
SYSROOT=${WASI_SYSROOT:-/usr}

if [ "$(id -u)" = 0 ]; then
  # deb-src for the Debian archive, in whichever form the sources are listed.
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -e "$f" ] && sed -i 's/^Types: deb$/Types: deb deb-src/' "$f"
  done
  if [ -e /etc/apt/sources.list ] && ! grep -q '^deb-src ' /etc/apt/sources.list; then
    sed -n 's/^deb \(.*debian.*\)/deb-src \1/p' /etc/apt/sources.list > /etc/apt/sources.list.d/voxsmith-deb-src.list
  fi
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32 dpkg-dev
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
# The Debian packaging (patches) may be missing from a mirror; the source is then the upstream tarball the
# package is built from, which apt-get has already fetched and checked.
if apt-get source -q flite; then
  src=$(find . -maxdepth 1 -type d -name 'flite-*' | head -n 1)
else
  tar xzf flite_*.orig.tar.gz
  src=$(find . -maxdepth 1 -type d -name 'flite-*' | head -n 1)
fi
[ -n "$src" ] || { echo "no flite source" >&2; exit 1; }
cd "$src"
VERSION=$(sed -n 's/^#define FLITE_PROJECT_VERSION "\(.*\)"/\1/p' include/flite_version.h)

# flite reports a fatal error with longjmp when a handler is set, exit otherwise; wasi-libc has no setjmp.h
# (no handler is ever set here), so an error ends the call through proc_exit.
mkdir -p "$tmp/shim"
cat > "$tmp/shim/setjmp.h" <<'EOF'
#ifndef VX_SETJMP_SHIM
#define VX_SETJMP_SHIM
typedef int jmp_buf[1];
#define setjmp(b) 0
#define longjmp(b, v) __builtin_trap()
#endif
EOF

# The library's sources for audio "none", no sockets and no memory-mapped voices; a file another one includes
# (the lexicon's data tables) is not compiled on its own.
{
  for d in utils regex hrg lexicon speech stats synth wavesynth cg; do ls src/$d/*.c; done \
    | grep -v -e cst_file_palmos -e cst_file_wince -e cst_mmap_posix -e cst_mmap_win32
  echo src/audio/audio.c src/audio/au_streaming.c src/audio/au_none.c | tr ' ' '\n'
  for d in usenglish cmulex cmu_us_slt cmu_us_awb cmu_us_rms cmu_us_kal16 cmu_us_kal; do
    included=$(sed -n 's/^#include "\(.*\.c\)"/\1/p' lang/$d/*.c)
    for f in lang/$d/*.c; do
      echo "$included" | grep -qx "$(basename "$f")" || echo "$f"
    done
  done
  echo "$GLUE"
} > sources.txt

FLAGS="--target=wasm32-wasi --sysroot=$SYSROOT -isystem $tmp/shim -O2 -flto -DCST_NO_SOCKETS -DCST_AUDIO_NONE
  -Iinclude -Ilang/usenglish -Ilang/cmulex -Wno-everything"
mkdir -p obj
# Two at a time (the voice data files are large); any failure stops the build.
# shellcheck disable=SC2086
xargs -P 2 -I {} sh -c '"$0" $1 -I"$(dirname "$2")" -c "$2" -o "obj/$(echo "$2" | tr / _).o"' "$CLANG" "$FLAGS" {} < sources.txt
# A reactor (no main): the host calls _initialize, then the exported vx_* functions. -flto (in FLAGS) lets
# the link inline across files, resident.c's strcmp into flite's feature lookups among them.
# shellcheck disable=SC2086
"$CLANG" $FLAGS -mexec-model=reactor -fuse-ld=lld -Wl,--strip-all -Wl,--gc-sections \
  -Wl,-z,stack-size=1048576 -o "$tmp/flite.wasm" obj/*.o
cp "$tmp/flite.wasm" "$OUT"
echo "wrote $OUT (flite $VERSION, $(wc -c < "$OUT") bytes; $("$CLANG" --version | head -n 1))"
