#!/usr/bin/env node
// `store-orders`: the operator's command line. Orders, pets and keys can only be made here.
import { runCommandLine } from './commandLine.js';

process.exitCode = await runCommandLine(process.argv.slice(2), {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  note: (line) => process.stderr.write(`${line}\n`),
});
