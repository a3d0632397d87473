#!/usr/bin/env bash
# cargo for the win64 binary and the Windows test executables, cross-built on Debian 12:
#
#   bash packaging/win64_cargo.sh build --release --lib     # what packaging/package.py runs
#   bash packaging/win64_cargo.sh test --release --no-run --test threads
#   bash packaging/win64_cargo.sh --check-toolchain          # only the checks below; prints the versions
#
# rustup's std for x86_64-pc-windows-gnu cannot be downloaded on the build machine, so std is built
# from source (cargo -Zbuild-std, allowed on a stable compiler by RUSTC_BOOTSTRAP=1) with Debian's
# rustc-web and the std source of the very same release (rust-web-src), linked by MinGW-w64 gcc.
# The output goes to target/win64 so that it never invalidates the host build in target/.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target=x86_64-pc-windows-gnu
gcc=x86_64-w64-mingw32-gcc

die() {
    printf 'win64_cargo: error: %s\n' "$*" >&2
    exit 1
}

package_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }

missing=()
for package in rustc-web cargo-web rust-web-src gcc-mingw-w64-x86-64; do
    [ -n "$(package_version "$package")" ] || missing+=("$package")
done
[ "${#missing[@]}" -eq 0 ] \
    || die "the win64 toolchain is not installed (missing: ${missing[*]}): run 'bash packaging/setup.sh' as root, or set ELASTOGAP_SKIP_WIN64=1 to package linux64 only"

# A std source of another release than the compiler does not build, or builds a std the compiler
# then misreads: the two Debian packages must have one version, and the source tree that release.
compiler_version=$(package_version rustc-web)
source_version=$(package_version rust-web-src)
[ "$compiler_version" = "$source_version" ] \
    || die "rustc-web $compiler_version and rust-web-src $source_version differ: 'apt-get install rustc-web cargo-web rust-web-src' from one suite (bookworm-security)"
rustc=/usr/bin/rustc
cargo=/usr/bin/cargo
release=$("$rustc" --version 2>/dev/null | cut -d' ' -f2)
[ "$release" = "${compiler_version%%+*}" ] \
    || die "$rustc is release '$release', not rustc-web $compiler_version (another package owns it?)"
std_source=/usr/lib/rustlib/src/rust
[ -f "$std_source/library/std/Cargo.toml" ] && [ "$(readlink -f "$std_source")" = "/usr/src/rustc-$release" ] \
    || die "$std_source is not the std source of rustc $release (rust-web-src $source_version)"
command -v "$gcc" >/dev/null 2>&1 || die "$gcc not found (gcc-mingw-w64-x86-64)"

if [ "${1:-}" = "--check-toolchain" ]; then
    printf 'rustc %s with its std source (rustc-web %s), %s %s\n' \
        "$release" "$compiler_version" "$gcc" "$("$gcc" -dumpversion)"
    exit 0
fi
[ $# -ge 1 ] || die "usage: $0 <cargo subcommand> [arguments] | --check-toolchain"

export RUSTC="$rustc" RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="$root/target/win64"
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER="$gcc"
# clang (bindgen in fmi-sys's build script) targets MinGW but knows no MinGW gcc's own headers
# (stddef.h, stdarg.h).
export BINDGEN_EXTRA_CLANG_ARGS_x86_64_pc_windows_gnu="-I$("$gcc" -print-file-name=include)"
# The FMI layer turns a panic into fmi2Fatal with catch_unwind: an abort would kill the host.
export CARGO_PROFILE_RELEASE_PANIC=unwind
subcommand=$1
shift
cd "$root"
exec "$cargo" "$subcommand" -Zbuild-std=std,panic_unwind --target "$target" "$@"
