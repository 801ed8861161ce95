#!/usr/bin/env bash
# From a fresh clone: install pnpm if needed, install dependencies, build, and run the example eval suite.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v pnpm >/dev/null 2>&1 || [[ "$(pnpm --version)" != 10.* ]]; then
  npm install -g pnpm@10 --no-fund --no-audit
fi
pnpm install --frozen-lockfile
pnpm run build
pnpm run examples
