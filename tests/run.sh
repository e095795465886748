#!/bin/sh
# The whole check suite: installs what the tests need, then lint, types and tests.
# Usage: sh tests/run.sh [extra pytest arguments]
set -eu
cd "$(dirname "$0")/.."

# Debian's chromium drives the browser tests (Playwright cannot download browsers here).
if ! command -v chromium >/dev/null 2>&1; then
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends chromium git
fi

python3 -m pip install -q -e '.[all,test]'

ruff check indexer tests bench tools
ruff format --check indexer tests bench tools
mypy
python3 -m pytest "$@"
