// `npm run pack:client`: the typed client as a package of its own, store-orders-client, that installs without
// the server (no Fastify, no native module): the built src/client.ts (v1's and v2's clients) and
// generated/openapi.d.ts and openapi.v2.d.ts, laid out as in this repository so that the declarations'
// relative imports hold, with openapi-fetch its one dependency.
// Assembled in dist/client-package/ and packed into dist/ (or into `--out DIR`, as a test does to stay out of
// the dist/ other tests read); the tarball's full path is the one line on stdout.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
export const CLIENT_PACKAGE_NAME = 'store-orders-client';
/** The client's files, each at the same path in the package as in this repository. */
const SHIPPED = ['dist/client.js', 'dist/client.d.ts', 'generated/openapi.d.ts', 'generated/openapi.v2.d.ts'];

/**
 * The first ```ts block of docs/client.md, the client's guide: the example a test runs as written.
 * @param {string} guide
 * @returns {string}
 */
export function clientExample(guide) {
  const example = /^```ts\n([\s\S]*?)^```/m.exec(guide)?.[1];
  if (!example) throw new Error('docs/client.md has no ```ts example');
  return example;
}
/**
 * The client package's package.json, from the server package's: same version, same openapi-fetch range.
 * @param {{ version: string, license: string, engines: object, dependencies?: Record<string, string> }} serverManifest
 */
export function clientManifest(serverManifest) {
  const openapiFetch = serverManifest.dependencies?.['openapi-fetch'];
  if (!openapiFetch) throw new Error('package.json has no openapi-fetch dependency');
  return {
    name: CLIENT_PACKAGE_NAME,
    version: serverManifest.version,
    description: 'Typed client for the Store Orders API: openapi-fetch over the types of its OpenAPI contract.',
    license: serverManifest.license,
    type: 'module',
    engines: serverManifest.engines,
    exports: {
      '.': { types: './dist/client.d.ts', import: './dist/client.js' },
      './package.json': './package.json',
    },
    // npm adds README.md and LICENSE itself, but no longer CHANGELOG.md.
    files: [...SHIPPED, 'CHANGELOG.md'],
    dependencies: { 'openapi-fetch': openapiFetch },
  };
}

function clientReadme(version, example) {
  return `# store-orders-client

The typed client of the Store Orders API, version ${version}: [openapi-fetch](https://openapi-ts.dev/openapi-fetch/)
over the TypeScript types generated from the API's contracts (\`openapi.yaml\` for v1 and \`openapi.v2.yaml\` for v2,
as served by store-orders ${version}), so paths, parameters, bodies, answers and Error bodies are checked by the
compiler. Its one dependency is openapi-fetch.

## Usage

\`\`\`ts
${example}\`\`\`

\`createStoreOrdersClient(baseUrl, key, options?)\` speaks API v1: \`baseUrl\` is its root, \`/v1\` included
(\`http://127.0.0.1:3000/v1\`); \`key\` is an API key from \`store-orders keys create\`, sent as a bearer token;
\`options\` are openapi-fetch's client options other than \`baseUrl\` and \`headers\` (your own \`fetch\`, say).
\`createStoreOrdersClientV2(baseUrl, key, options?)\` is the same for API v2, \`/v2\` included, whose listOrders
answers a page (\`data\`, \`hasMore\`, \`nextCursor\`) and takes \`limit\`, \`cursor\` and filters.
Each call resolves to \`{ data, error, response }\`: a refused call has \`error\`, the API's Error body
\`{ code, message, status }\`. The package also exports the types \`paths\`, \`components\`, \`pathsV2\`,
\`componentsV2\`, \`ErrorBody\`, \`OrderPage\`, \`StoreOrdersClient\` and \`StoreOrdersClientV2\`.

The package's version is the contract's: changes are listed in CHANGELOG.md. Licence: MIT (LICENSE).
`;
}

/** npm without the npm_* variables of an enclosing `npm run`, which would point it at this repository. */
function npm(args, cwd) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return execFileSync('npm', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

/**
 * Packs into `out` (dist/ by default) and returns the tarball's path.
 * @returns {string}
 */
export function packClient(out = join(root, 'dist')) {
  // A dist/ that is not what a build of this tree would write would ship a stale client.
  try {
    execFileSync(process.execPath, [join(root, 'scripts/build.mjs'), '--check'], { stdio: 'ignore' });
  } catch {
    throw new Error('dist/ is missing or stale: run `npm run build` first');
  }
  const serverManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const manifest = clientManifest(serverManifest);
  const staging = join(out, 'client-package');
  rmSync(staging, { recursive: true, force: true });
  for (const file of SHIPPED) {
    mkdirSync(dirname(join(staging, file)), { recursive: true });
    // The source map points into src/, which the package does not carry.
    const text = readFileSync(join(root, file), 'utf8').replace(/^\/\/# sourceMappingURL=.*\n?/m, '');
    writeFileSync(join(staging, file), text);
  }
  for (const file of ['LICENSE', 'CHANGELOG.md']) copyFileSync(join(root, file), join(staging, file));
  writeFileSync(join(staging, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const example = clientExample(readFileSync(join(root, 'docs', 'client.md'), 'utf8'));
  writeFileSync(join(staging, 'README.md'), clientReadme(manifest.version, example));
  const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', out], staging));
  return join(out, packed.filename);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const { values } = parseArgs({ options: { out: { type: 'string' } } });
    console.log(packClient(values.out === undefined ? undefined : resolve(values.out)));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
