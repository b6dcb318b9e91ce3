#!/bin/sh
# Trunk's post-build hook (Trunk.toml): puts MNIST's full files beside the page, in
# data/mnist/, for the Train panel, which fetches them only when training starts (they are not
# part of the first load). The files come from $STRIDELAB_MNIST_DIR, else from
# ../shared/data/mnist beside the checkout; without them the build still succeeds and the panel
# asks the user to open the files.
set -eu
src="${STRIDELAB_MNIST_DIR:-../shared/data/mnist}"
dst="${TRUNK_STAGING_DIR:?run by trunk}/data/mnist"
if [ ! -f "$src/train-images-idx3-ubyte.gz" ]; then
  echo "stage_mnist: no MNIST files in $src; the Train panel will ask for them"
  exit 0
fi
mkdir -p "$dst"
for f in train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz; do
  if [ -f "$src/$f" ]; then cp "$src/$f" "$dst/$f"; fi
done
echo "stage_mnist: copied MNIST from $src"
