#!/usr/bin/env bash
# Installs libtorch for the `neural` feature, idempotently.
#
# tch 0.26 links the libtorch of PyTorch 2.13.0. The PyTorch wheel from PyPI
# carries that libtorch (headers and shared libraries), so this script
# installs the pinned wheel into .libtorch/ (git-ignored) and writes
# .libtorch/env.sh, which points the build at it:
#
#     scripts/install-libtorch.sh && source .libtorch/env.sh
#     cargo test --workspace --features neural
#
# The build embeds an rpath to .libtorch, so the binary then runs without
# LD_LIBRARY_PATH. About 5 GB on disk; about a minute to install.
set -euo pipefail

TORCH_VERSION=2.13.0
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest="$root/.libtorch"
python=${PYTHON:-python3}

if [[ -f "$dest/python/torch/lib/libtorch_cpu.so" && "$(cat "$dest/VERSION" 2>/dev/null)" == "$TORCH_VERSION" ]]; then
    echo "libtorch $TORCH_VERSION already installed in $dest" >&2
else
    echo "installing torch==$TORCH_VERSION into $dest (about 5 GB)..." >&2
    rm -rf "$dest/python"
    mkdir -p "$dest"
    "$python" -m pip install --quiet --disable-pip-version-check --no-warn-script-location --root-user-action=ignore \
        --target "$dest/python" "torch==$TORCH_VERSION"
    echo "$TORCH_VERSION" > "$dest/VERSION"
fi

libtorch="$dest/python/torch"
cat > "$dest/env.sh" <<ENV
# Source this file to build with the neural feature (written by scripts/install-libtorch.sh).
export LIBTORCH="$libtorch"
export LIBTORCH_INCLUDE="$libtorch"
export LIBTORCH_LIB="$libtorch"
ENV
echo "libtorch ready: source $dest/env.sh" >&2
