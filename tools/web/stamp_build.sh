#!/bin/sh
# Trunk's post-build hook (Trunk.toml): the two wasm modules have fixed names, so the page asks
# for them with ?v=<build>; this writes <build>, a hash of both modules, into the staged
# index.html's <html data-build>.
set -eu
dir="${TRUNK_STAGING_DIR:?run by trunk}"
build=$(cat "$dir"/stridelab-web_bg.wasm "$dir"/stridelab-web-runtime_bg.wasm | sha256sum | cut -c1-16)
sed -i "s/data-build=\"dev\"/data-build=\"$build\"/" "$dir/index.html"
echo "stamp_build: build $build"
