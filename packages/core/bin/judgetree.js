#!/usr/bin/env node
// The `judgetree` command (package.json "bin"). A file of its own, not dist/cli.js itself, so that it exists before
// the first build: pnpm links a workspace package's bin at install time, and warns for each missing one.
import '../dist/cli.js'
