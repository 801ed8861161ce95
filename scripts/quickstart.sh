#!/usr/bin/env bash
# From a fresh clone: install pnpm if needed, install dependencies, build, and run the example eval suite.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v pnpm >/dev/null 2>&1 || [[ "$(pnpm --version)" != 10.* ]]; then
  npm install -g pnpm@10 --no-fund --no-audit
fi
pnpm install --frozen-lockfile
pnpm run build
# pnpm links a package's bin only when its file exists: link `judgetree` (packages/core/dist/cli.js) now it is built,
# so `npx judgetree` works in the examples (docs/migrating-judges.md tries it there).
pnpm install --frozen-lockfile --offline >/dev/null
pnpm run examples
