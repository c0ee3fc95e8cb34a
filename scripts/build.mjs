// The build: TypeScript from src/ into dist/, then the contract as JSON (build-contract.mjs).
//
// `node scripts/build.mjs --if-stale` (`npm run build`, and so CI, the bench and the scripts that build
// first; `npm start`'s prestart; the tests' setup) builds nothing when dist/ is what a build of the current
// tree would write: a script that builds first then never rewrites, file by file, a dist/ that servers
// started beside it are reading. Without a flag it always builds everything; `--check` only says whether
// dist/ is current (exit 0) or not (exit 1).
// dist/build-stamp.json records, for the last build that finished, a digest of everything the build reads
// and the size and modification time of every file it wrote: a build is due when an input's content
// differs, or when an output is missing or was written since (a `tsc` run by hand, say, from other
// sources). The stamp is removed before building, so a build that fails leaves none.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtName, SERVED_DOCUMENTS } from './contracts.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(root, 'dist', 'build-stamp.json');

/** Whatever can change what the build writes, relative to the root; folders are read whole. */
const INPUTS = [
  'src',
  'generated',
  'openapi.yaml',
  'openapi.v2.yaml',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  // The versions of TypeScript and of the types the code compiles against.
  'package-lock.json',
  'scripts/build.mjs',
  'scripts/build-contract.mjs',
  'scripts/contracts.mjs',
];

function filesUnder(path) {
  const absolute = join(root, path);
  if (!existsSync(absolute)) return [];
  if (!statSync(absolute).isDirectory()) return [path];
  return readdirSync(absolute, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

function inputsDigest() {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(filesUnder)) {
    hash.update(`${file}\0`).update(readFileSync(join(root, file))).update('\0');
  }
  return hash.digest('hex');
}

/** The files the build writes: tsc's three for each module of src/, and two for each contract and rendition. */
function outputFiles() {
  const modules = filesUnder('src')
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => join('dist', relative('src', file)).replace(/\.ts$/, ''));
  return [
    ...modules.flatMap((stem) => [`${stem}.js`, `${stem}.js.map`, `${stem}.d.ts`]),
    ...SERVED_DOCUMENTS.flatMap((file) => [`dist/${builtName(file)}.json`, `dist/${builtName(file)}.yaml.sha256`]),
  ];
}

/** Size and modification time of each output, or null when one is missing. */
function outputsState() {
  const state = {};
  for (const file of outputFiles()) {
    const absolute = join(root, file);
    if (!existsSync(absolute)) return null;
    const { size, mtimeMs } = statSync(absolute);
    state[file] = [size, mtimeMs];
  }
  return state;
}

function readStamp() {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return null;
  }
}

function isCurrent(inputs) {
  const stamp = readStamp();
  const outputs = outputsState();
  return (
    stamp !== null &&
    outputs !== null &&
    stamp.inputs === inputs &&
    JSON.stringify(stamp.outputs) === JSON.stringify(outputs)
  );
}

function build(inputs) {
  rmSync(STAMP, { force: true });
  const run = (script, ...args) =>
    execFileSync(process.execPath, [join(root, script), ...args], { cwd: root, stdio: 'inherit' });
  try {
    run('node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json');
    run('scripts/build-contract.mjs');
  } catch (error) {
    // The step has printed its errors; a stack trace of this script would only bury them.
    process.exit(error.status ?? 1);
  }
  // The digest taken before building: a source edited while tsc ran makes the next start build again.
  writeFileSync(STAMP, `${JSON.stringify({ inputs, outputs: outputsState() })}\n`);
}

const inputs = inputsDigest();
if (process.argv.includes('--check')) {
  // Builds nothing; says whether --if-stale would.
  const current = isCurrent(inputs);
  console.log(current ? 'dist/ is current' : 'dist/ is stale');
  process.exit(current ? 0 : 1);
} else if (process.argv.includes('--if-stale') && isCurrent(inputs)) {
  // On stderr: a script that builds first (pack:client) keeps stdout for what it prints itself.
  console.error('dist/ is current: nothing to build');
} else {
  build(inputs);
}
