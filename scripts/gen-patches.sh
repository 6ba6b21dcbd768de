#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Regenerate patches/ (see gen-patches.py) and check that the result
# applies to the pristine tree with git am.
set -euo pipefail
. "$(dirname "$0")/env.sh"
[ -d "$RUST_TREE/.git" ] || "$(dirname "$0")/rust-tree.sh" --base-only
export PRISTINE
python3 "$(dirname "$0")/gen-patches.py"
