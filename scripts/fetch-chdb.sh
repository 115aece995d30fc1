#!/bin/sh
# fetch-chdb.sh installs libchdb.so (ClickHouse 26.5 built as a library) under
# .chdb/lib/ for the embedded engine. Idempotent: `make setup` calls it on
# every run and it returns at once when the library is already there.
#
# The library ships in the npm package @chdb/lib-linux-x64-gnu. We pin the
# version and its tarball checksum so that every machine embeds the same
# engine, and we never execute anything from the package: only libchdb.so is
# extracted.
set -eu

VERSION=26.5.3
PACKAGE=@chdb/lib-linux-x64-gnu@$VERSION
TARBALL=chdb-lib-linux-x64-gnu-$VERSION.tgz
SHA256=b874e449710950da3abd7e20376f7bb3387d9e03adcc7082f022be18dfdf316a

root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/.chdb
lib=$dir/lib/libchdb.so

if [ -f "$lib" ]; then
	exit 0
fi

mkdir -p "$dir/lib"
if [ ! -f "$dir/$TARBALL" ]; then
	command -v npm >/dev/null 2>&1 || {
		echo "fetch-chdb: npm is needed to download $PACKAGE" >&2
		exit 1
	}
	echo "fetch-chdb: downloading $PACKAGE (about 170 MB)" >&2
	(cd "$dir" && npm pack --silent "$PACKAGE" >/dev/null)
fi

got=$(sha256sum "$dir/$TARBALL" | cut -d' ' -f1)
if [ "$got" != "$SHA256" ]; then
	echo "fetch-chdb: checksum mismatch for $TARBALL: got $got, want $SHA256" >&2
	# A corrupt or tampered download must not stay around to be reused.
	rm -f "$dir/$TARBALL"
	exit 1
fi

# Unpack into a scratch dir and move into place last, so that an interrupted
# run never leaves a truncated library where the engine would load it.
tmp=$(mktemp -d "$dir/unpack.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$dir/$TARBALL" -C "$tmp" package/libchdb.so
mv "$tmp/package/libchdb.so" "$lib.tmp"
mv "$lib.tmp" "$lib"
echo "fetch-chdb: installed $lib" >&2
