// `node scripts/update-docs-bundle.mjs <version>`: replaces the committed copy of Scalar's standalone browser
// bundle, which /docs serves (src/docs/scalarBundle.ts), with the one published in @scalar/api-reference
// <version>. The bundle is committed rather than installed: the package pulls some 260 packages whose
// engines want a newer Node than the lines this project supports, for this one file that Node never runs.
// The tarball comes through npm, which checks it against the registry's integrity.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = '@scalar/api-reference';
const BUNDLE = 'dist/browser/standalone.js';

const version = process.argv[2];
if (!version || !/^\d+\.\d+\.\d+$/.test(version)) {
  console.error('usage: node scripts/update-docs-bundle.mjs <version>   (an exact version, e.g. 1.72.1)');
  process.exit(2);
}

const target = fileURLToPath(new URL('../generated/scalar-api-reference/', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'store-orders-scalar-'));
try {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', `${PACKAGE}@${version}`, '--json', '--pack-destination', scratch], {
      cwd: scratch,
      encoding: 'utf8',
    }),
  );
  execFileSync('tar', ['-xzf', join(scratch, packed.filename), '-C', scratch, `package/${BUNDLE}`]);
  mkdirSync(target, { recursive: true });
  copyFileSync(join(scratch, 'package', BUNDLE), join(target, 'standalone.js'));
  const bytes = readFileSync(join(target, 'standalone.js'));
  const source = {
    package: PACKAGE,
    version: packed.version,
    file: BUNDLE,
    tarballIntegrity: packed.integrity,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
  writeFileSync(join(target, 'source.json'), `${JSON.stringify(source, null, 2)}\n`);
  console.log(`generated/scalar-api-reference/standalone.js is now ${PACKAGE}@${packed.version}'s ${BUNDLE}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
