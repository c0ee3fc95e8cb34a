// The outside contract-testing tools, each given a contract unmodified and a server of its own set up as
// README.md's "Contract testing this service" says: a new database, `store-orders init --examples` (whose
// key is the bearer token), `node dist/main.js`. One line per run (tool, contract, result, counts,
// seconds), each run's whole output in test-artifacts/contract-tools/, exit 1 when any run failed.
//
//   node scripts/contract-tools.mjs [portman|dredd|specmatic ...]     (every tool when none is named)
//   node scripts/contract-tools.mjs --install                         (installs the tools, runs none: CI)
//
// The tools live outside the project's devDependencies: scripts/contract-tools/ (Portman, newman,
// Specmatic) and scripts/contract-tools/dredd/ (Dredd, whose old dependency tree stays apart), each
// installed with `npm ci` from its own lockfile when missing. Specmatic needs Java 17 or later on PATH.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { parse } from 'yaml';
import { CONTRACTS } from './contracts.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const TOOLS_DIR = join(root, 'scripts', 'contract-tools');
const DREDD_DIR = join(TOOLS_DIR, 'dredd');
const ARTIFACTS = join(root, 'test-artifacts', 'contract-tools');
const CLI = join(root, 'dist', 'cli', 'main.js');
const SERVER = join(root, 'dist', 'main.js');

/** One tool's process: ten minutes is far beyond any of them here (seconds each), a guard against a hang. */
const TOOL_TIMEOUT_MS = 10 * 60_000;
/** Failures printed per run; the log has them all. */
const FAILURES_SHOWN = 8;

/** Each npm tree of tools, installed with `npm ci` when one of its binaries is missing. */
const PACKAGES = [
  { dir: TOOLS_DIR, bins: ['portman', 'newman', 'specmatic'] },
  { dir: DREDD_DIR, bins: ['dredd'] },
];

const bin = (dir, name) => join(dir, 'node_modules', '.bin', name);

/** The servers and tools running now, and the current run's scratch folder: see main. */
const running = new Set();
const scratchFolders = new Set();

/**
 * `command` started with its output piped, in a process group of its own (Specmatic's npm wrapper starts
 * java, which must end with it), and known to `running` until it exits.
 */
function start(command, args, options) {
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.on('exit', () => running.delete(child));
  return child;
}

/** `signal` to `child`'s whole process group; nothing when it has already ended. */
function kill(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** @typedef {{ passed: number, failed: number, failures: string[] }} ToolResult */
/** @typedef {{ document: string, baseUrl: string, key: string, scratch: string, log: string }} ToolRun */
/** @typedef {{ name: string, reads31: boolean, run: (run: ToolRun) => Promise<ToolResult> }} Tool */

/**
 * The tools, each run when none is named. `run` sends the tool at one document and base URL with the key,
 * and resolves with `{ passed, failed, failures }` (`failures`: one line each) read from its output;
 * `reads31` marks a tool that also takes the OpenAPI 3.1 renditions.
 * Specmatic reads no rendition: it takes a rendition's `examples: { default: … }` (3.1's form of each
 * `example`) for named examples, and pairs the one named `default` with every status, error statuses
 * included, so it expects a 400, a 401 and a 429 from the same good request; the renditions are made
 * from the contracts it does test, and Portman reads them.
 * @type {Tool[]}
 */
export const TOOLS = [
  { name: 'portman', reads31: true, run: runPortman },
  { name: 'dredd', reads31: false, run: runDredd },
  { name: 'specmatic', reads31: false, run: runSpecmatic },
];

/**
 * Every run: each tool on each contract, then the 3.1-reading tools on each rendition that exists.
 * @param {Tool[]} tools
 * @param {{ major: number, document: string, rendition?: string }[]} [contracts]
 * @param {(file: string) => boolean} [exists]
 * @returns {{ tool: Tool, contract: string, document: string, basePath: string }[]}
 */
export function plannedRuns(tools, contracts = CONTRACTS, exists = (file) => existsSync(join(root, file))) {
  const runs = contracts.flatMap(({ major, document }) =>
    tools.map((tool) => ({ tool, contract: `v${major}`, document, basePath: `/v${major}` })),
  );
  const renditions = contracts.flatMap(({ major, rendition }) =>
    rendition && exists(rendition)
      ? tools
          .filter(({ reads31 }) => reads31)
          .map((tool) => ({ tool, contract: `v${major} 3.1`, document: rendition, basePath: `/v${major}` }))
      : [],
  );
  return [...runs, ...renditions];
}

// ---- Portman + newman ----

/** Portman turns the document into a Postman collection with contract tests; newman runs it. */
async function runPortman({ document, baseUrl, key, scratch, log }) {
  const collection = join(scratch, 'collection.json');
  const report = join(scratch, 'newman.json');
  // Portman writes a tmp/ of its own in the working folder: the scratch folder.
  const converted = await runProcess(
    bin(TOOLS_DIR, 'portman'),
    ['-l', document, '-b', baseUrl, '-c', join(TOOLS_DIR, 'portman-config.json'), '-o', collection],
    { cwd: scratch, log },
  );
  if (converted.code !== 0 || !existsSync(collection)) {
    return { passed: 0, failed: 1, failures: [`portman could not convert ${relative(root, document)}`] };
  }
  await runProcess(
    bin(TOOLS_DIR, 'newman'),
    ['run', collection, '--env-var', `bearerToken=${key}`, '--reporters', 'cli,json', '--reporter-json-export', report],
    { cwd: scratch, log, key },
  );
  if (!existsSync(report)) return { passed: 0, failed: 1, failures: ['newman wrote no report'] };
  return newmanResult(JSON.parse(readFileSync(report, 'utf8')));
}

/** @typedef {{ error?: { test?: string, message?: string }, source?: { name?: string } }} NewmanFailure */

/**
 * Counts from newman's JSON report: assertions passed; failed assertions and requests that got no answer.
 * @param {{ run: { stats: { assertions: { total: number, failed: number } }, failures: NewmanFailure[] } }} report
 * @returns {ToolResult}
 */
export function newmanResult(report) {
  const { assertions } = report.run.stats;
  const failures = report.run.failures.map(({ error, source }) =>
    [source?.name, error?.test, error?.message].filter(Boolean).join(': '),
  );
  return { passed: assertions.total - assertions.failed, failed: failures.length, failures };
}

// ---- Dredd ----

/** Dredd with the key as a header; its hookfile makes it test OpenAPI 3 as it tests OpenAPI 2. */
async function runDredd({ document, baseUrl, key, scratch, log }) {
  const { output } = await runProcess(
    bin(DREDD_DIR, 'dredd'),
    [
      document,
      baseUrl,
      '--header',
      `Authorization: Bearer ${key}`,
      '--hookfiles',
      join(DREDD_DIR, 'hooks.js'),
      '--loglevel',
      'error',
    ],
    { cwd: scratch, log, key },
  );
  return dreddResult(output);
}

/**
 * Counts from Dredd's closing `complete:` line; each failed transaction with the first line of why.
 * @param {string} output
 * @returns {ToolResult}
 */
export function dreddResult(output) {
  const lines = stripVTControlCharacters(output).split('\n');
  const complete = lines
    .map((line) => /^complete: (\d+) passing, (\d+) failing, (\d+) errors, (\d+) skipped/.exec(line))
    .find(Boolean);
  if (!complete) return { passed: 0, failed: 1, failures: ['dredd did not finish (no "complete:" line)'] };
  const shown = lines.indexOf(lines.find((line) => line.includes('Displaying failed tests')) ?? '');
  const failures = [];
  for (let index = Math.max(shown, 0); shown >= 0 && index < lines.length; index += 1) {
    const name = /^(?:fail|error): (.+?) duration: /.exec(lines[index] ?? '');
    if (name) failures.push(`${name[1]}: ${(lines[index + 1] ?? '').replace(/^(?:fail|error): /, '')}`);
  }
  const failed = Number(complete[2]) + Number(complete[3]);
  while (failures.length < failed) failures.push('(see the log)');
  return { passed: Number(complete[1]), failed, failures };
}

// ---- Specmatic ----

let javaChecked;
/** Whether `java` runs; Specmatic's jar needs Java 17 or later. */
function javaVersion() {
  javaChecked ??= spawnSync('java', ['-version'], { encoding: 'utf8' });
  return javaChecked.error ? undefined : (javaChecked.stderr.split('\n')[0] ?? '');
}

/**
 * Specmatic tests each operation with the one request of its external example, made here from the
 * contract's own examples; `--strict` and no generative tests keep it from building requests out of the
 * schemas, which here name records that do not exist (random ids), break the contract's own limits (query
 * arrays past `maxItems`) or come from its generator's reading of a pattern (`Idempotency-Key`). It sends
 * the key where the document's security scheme says, from the environment variable named after the
 * scheme (`bearerAuth`). Its telemetry is turned off: it would try to reach a host of its own, which CI
 * cannot and should not. The JIT's first tier alone: the second costs a JVM this short-lived more than it
 * saves, by far on two cores.
 */
async function runSpecmatic({ document, baseUrl, key, scratch, log }) {
  if (!javaVersion()) {
    return { passed: 0, failed: 1, failures: ['java is not on PATH (Debian: apt-get install default-jre-headless)'] };
  }
  const contract = parse(readFileSync(document, 'utf8'));
  const examplesDir = join(scratch, 'specmatic-examples');
  mkdirSync(examplesDir);
  const examples = specmaticExamples(contract);
  for (const { name, example } of examples) writeFileSync(join(examplesDir, `${name}.json`), JSON.stringify(example));
  const schemes = Object.keys(contract.components?.securitySchemes ?? {});
  const env = {
    SPECMATIC_DISABLE_TELEMETRY: 'true',
    SPECMATIC_GENERATIVE_TESTS: 'false',
    JAVA_OPTS: process.env.JAVA_OPTS ?? '-XX:TieredStopAtLevel=1',
    ...Object.fromEntries(schemes.map((name) => [name, key])),
  };
  const { output } = await runProcess(
    bin(TOOLS_DIR, 'specmatic'),
    ['test', document, '--testBaseURL', baseUrl, '--examples', examplesDir, '--strict'],
    { cwd: scratch, log, env },
  );
  return specmaticResult(output, examples.length);
}

/**
 * One Specmatic external example per operation of `contract`, named after its operationId: its request
 * with each path, query and header parameter the contract gives an example for, and the request body's
 * example; its response, the operation's first 2xx status with that response's example body. Specmatic
 * holds the answer to the status and to the schemas, not to the example's values (a new message has an id
 * of its own).
 * @param {any} contract the parsed OpenAPI 3.0 document
 * @returns {{ name: string, example: { 'http-request': object, 'http-response': object } }[]}
 */
export function specmaticExamples(contract) {
  return Object.entries(contract.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => {
      const { operationId, parameters = [], requestBody, responses } = item[method];
      const request = exampleRequest(contract, method, path, [...(item.parameters ?? []), ...parameters], requestBody);
      const response = exampleResponse(contract, responses);
      return { name: operationId, example: { 'http-request': request, 'http-response': response } };
    }),
  );
}

/** The methods a Path Item Object may hold an operation under. */
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The request of Specmatic's example: each parameter with an example, and the body's example. */
function exampleRequest(contract, method, path, parameters, requestBody) {
  const request = { method: method.toUpperCase(), path };
  const query = {};
  const headers = {};
  for (const { name, in: where, example } of parameters.map((parameter) => resolve(contract, parameter))) {
    if (example === undefined) continue;
    if (where === 'path') request.path = request.path.replace(`{${name}}`, encodeURIComponent(String(example)));
    else if (where === 'query') query[name] = example;
    else if (where === 'header') headers[name] = String(example);
  }
  if (Object.keys(query).length > 0) request.query = query;
  if (Object.keys(headers).length > 0) request.headers = headers;
  const body = jsonExample(contract, requestBody);
  return body === undefined ? request : { ...request, body };
}

/** The response of Specmatic's example: the first 2xx status, and its example body when it has one. */
function exampleResponse(contract, responses) {
  const status = Object.keys(responses).find((code) => /^2\d\d$/.test(code));
  const body = jsonExample(contract, responses[status]);
  return body === undefined ? { status: Number(status) } : { status: Number(status), body };
}

/** The `application/json` example of a request body or response, `$ref`s followed. */
function jsonExample(contract, bodyOrResponse) {
  return resolve(contract, bodyOrResponse)?.content?.['application/json']?.example;
}

/** `node` with its `$ref` to a place in `contract` followed, as often as it takes. */
function resolve(contract, node) {
  let resolved = node;
  while (typeof resolved?.$ref === 'string') {
    resolved = resolved.$ref
      .replace(/^#\//, '')
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce((parent, part) => parent?.[part], contract);
  }
  return resolved;
}

/**
 * Counts from Specmatic's `Tests run:` line; each unsuccessful scenario with its last reason line. A run of
 * other than `examples` tests fails too: Specmatic made up a test, or left an example out.
 * @param {string} output
 * @param {number} [examples]
 * @returns {ToolResult}
 */
export function specmaticResult(output, examples) {
  const lines = stripVTControlCharacters(output).split('\n');
  const counts = lines
    .map((line) => /Tests run: (\d+), Successes: (\d+), Failures: (\d+), WIP: \d+, Errors: (\d+)/.exec(line))
    .find(Boolean);
  if (!counts) return { passed: 0, failed: 1, failures: ['specmatic did not finish (no "Tests run:" line)'] };
  const failures = [];
  const start = lines.findIndex((line) => line.trim() === 'Unsuccessful Scenarios:');
  for (let index = start + 1; start >= 0 && index < lines.length; index += 1) {
    const scenario = /^\s+"Scenario: (.*) FAILED"$/.exec(lines[index] ?? '');
    if (!scenario) continue;
    // The block's last line says what differed: `Specification expected status 200 but …`.
    let reason = '';
    for (let next = index + 1; next < lines.length; next += 1) {
      const line = lines[next] ?? '';
      if (/^\s+"Scenario: /.test(line) || line.startsWith('Tests run:')) break;
      if (line.trim()) reason = line.trim();
    }
    failures.push(`${shorten(scenario[1] ?? '', 120)}: ${reason}`);
  }
  let failed = Number(counts[3]) + Number(counts[4]);
  if (examples !== undefined && Number(counts[1]) !== examples) {
    failed += 1;
    failures.push(`${counts[1]} tests run for ${examples} examples`);
  }
  return { passed: Number(counts[2]), failed, failures };
}

// ---- The server ----

/** A server on a new database in `scratch`, set up as the README says: `init --examples` prints the key. */
async function startServer(scratch, log) {
  const env = { DATABASE_URL: join(scratch, 'store.db') };
  const key = cli(['init', '--examples'], env).trim();
  if (!key) throw new Error('store-orders init --examples printed no key');
  const server = start(process.execPath, [SERVER], {
    cwd: scratch,
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: '0' },
  });
  const exited = new Promise((resolve) => server.on('exit', resolve));
  const origin = await new Promise((resolve, reject) => {
    let seen = '';
    const read = (chunk) => {
      seen += chunk;
      writeFileSync(log, chunk, { flag: 'a' });
      const listening = /listening: API (http:\/\/[^\s/]+)\/v1\b/.exec(seen);
      if (listening) resolve(listening[1]);
    };
    server.stdout.on('data', read);
    server.stderr.on('data', read);
    void exited.then((code) => {
      reject(new Error(`the server exited (${code}) before it listened; see ${relative(root, log)}`));
    });
  });
  const stop = async () => {
    kill(server, 'SIGTERM');
    const killer = setTimeout(() => kill(server, 'SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
  };
  return { origin, key, stop };
}

/** The operator's CLI on `env`'s database; its standard output (the key alone, for `init --examples`). */
function cli(args, env) {
  const result = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`store-orders ${args.join(' ')} failed: ${result.stderr.trim()}`);
  return result.stdout;
}

// ---- Running it all ----

/** A process to its end (or TOOL_TIMEOUT_MS); its output is appended to `log` and returned. */
function runProcess(command, args, { cwd, log, env = {}, key }) {
  // The command line as run, paths in the checkout relative to it, the key left out.
  const shown = [command, ...args].map((arg) => (arg.startsWith(root) ? relative(root, arg) : arg));
  writeFileSync(log, `\n$ ${shown.join(' ').replaceAll(key ?? '\0', '<key>')}\n`, { flag: 'a' });
  return new Promise((resolve) => {
    const child = start(command, args, { cwd, env: { ...process.env, ...env } });
    let output = '';
    const read = (chunk) => {
      output += chunk;
      writeFileSync(log, chunk, { flag: 'a' });
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    const timer = setTimeout(() => kill(child, 'SIGKILL'), TOOL_TIMEOUT_MS);
    child.on('error', (error) => read(`\n${error.message}\n`));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), output });
    });
  });
}

/** `npm ci` for each tree of tools whose binaries are missing, tried three times (the registry can stall). */
function ensureInstalled(packages) {
  for (const { dir, bins } of packages) {
    if (bins.every((name) => existsSync(bin(dir, name)))) continue;
    console.log(`> npm ci --prefix ${relative(root, dir)}`);
    const installed = [1, 2, 3].some((attempt) => {
      const result = spawnSync('npm', ['ci', '--prefix', dir], { stdio: 'inherit' });
      if (result.status !== 0) console.log(`npm ci --prefix ${relative(root, dir)} failed (attempt ${attempt} of 3)`);
      return result.status === 0;
    });
    if (!installed) throw new Error(`could not install ${relative(root, dir)}`);
  }
}

/** `text` on one line, cut to `length` characters. */
function shorten(text, length) {
  const line = text.replace(/\s*\n\s*/g, ' ');
  return line.length <= length ? line : `${line.slice(0, length - 1)}…`;
}

async function main() {
  // Ctrl-C, a closed pipe or a crash ends this process; the server and tool of the run end with it.
  process.on('exit', () => {
    for (const child of running) kill(child, 'SIGKILL');
    for (const folder of scratchFolders) rmSync(folder, { recursive: true, force: true });
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => process.exit(1));
  const names = process.argv.slice(2);
  if (names.length === 1 && names[0] === '--install') {
    ensureInstalled(PACKAGES);
    process.exit(0);
  }
  const unknown = names.filter((name) => !TOOLS.some((tool) => tool.name === name));
  if (unknown.length > 0) {
    console.error(`unknown tool ${unknown.join(', ')}; the tools: ${TOOLS.map(({ name }) => name).join(', ')}`);
    process.exit(2);
  }
  const tools = names.length === 0 ? TOOLS : TOOLS.filter(({ name }) => names.includes(name));
  const started = performance.now();
  ensureInstalled(PACKAGES.filter(({ bins }) => bins.some((name) => tools.some((tool) => tool.name === name))));
  const built = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  if (built.status !== 0) process.exit(1);
  rmSync(ARTIFACTS, { recursive: true, force: true });
  mkdirSync(ARTIFACTS, { recursive: true });
  if (tools.some(({ name }) => name === 'specmatic')) console.log(`java: ${javaVersion() ?? 'not found'}`);

  const results = [];
  for (const { tool, contract, document, basePath } of plannedRuns(tools)) {
    const label = `${tool.name}-${contract.replace(' ', '-')}`;
    const log = join(ARTIFACTS, `${label}.log`);
    const scratch = mkdtempSync(join(tmpdir(), `contract-tools-${label}-`));
    scratchFolders.add(scratch);
    const runStarted = performance.now();
    let result;
    try {
      const server = await startServer(scratch, join(ARTIFACTS, `${label}.server.log`));
      try {
        const baseUrl = `${server.origin}${basePath}`;
        result = await tool.run({ document: join(root, document), baseUrl, key: server.key, scratch, log });
      } finally {
        await server.stop();
      }
    } catch (error) {
      result = { passed: 0, failed: 1, failures: [error instanceof Error ? error.message : String(error)] };
    }
    rmSync(scratch, { recursive: true, force: true });
    scratchFolders.delete(scratch);
    const seconds = ((performance.now() - runStarted) / 1000).toFixed(1);
    const ok = result.failed === 0 && result.passed > 0;
    if (result.failed === 0 && result.passed === 0) result.failures.push('no test passed: the tool ran nothing');
    results.push({ ok });
    console.log(
      `${tool.name.padEnd(9)}  ${contract.padEnd(6)}  ${ok ? 'passed' : 'FAILED'}  ` +
        `${`${result.passed} passed, ${result.failed} failed`.padEnd(24)}  ${seconds.padStart(5)} s`,
    );
    for (const failure of result.failures.slice(0, FAILURES_SHOWN)) console.log(`    ${shorten(failure, 300)}`);
    const more = result.failures.length - FAILURES_SHOWN;
    if (more > 0) console.log(`    … and ${more} more`);
    if (!ok) console.log(`    whole output: ${relative(root, log)}`);
  }
  const failed = results.filter(({ ok }) => !ok).length;
  console.log(`contract tools took ${((performance.now() - started) / 1000).toFixed(0)} s`);
  console.log(`contract-tools: ${results.length - failed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
