#!/usr/bin/env node
// `store-orders` as npm links it: the CLI built into dist/. This file is committed, so it is there before
// the first build: `npx store-orders` in a checkout links the project's bin into npx's cache the first time
// it runs, keeps that link for good, and links no command at all when its file is missing.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('store-orders: not built yet: run `npm run build` (or `npm start`, which builds) first\n');
  process.exit(1);
}
await import(cli.href);
