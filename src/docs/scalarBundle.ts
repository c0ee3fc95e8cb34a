// Where the API reference's renderer comes from: Scalar's standalone browser bundle, one self-contained file.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The name of the copy the build puts next to this module (scripts/copy-docs-bundle.mjs). */
export const SHIPPED_BUNDLE_NAME = 'scalar-api-reference.js';

/**
 * A built package carries its own copy, so that @scalar/api-reference stays a devDependency: installing
 * it would pull some 260 packages (Vue and the rest of Scalar's sources) for this one file. Running from
 * src/ in a checkout, the file is read from node_modules.
 */
export function scalarBundlePath(): string {
  const shipped = fileURLToPath(new URL(`./${SHIPPED_BUNDLE_NAME}`, import.meta.url));
  if (existsSync(shipped)) return shipped;
  // The package's exports do not list the browser build; its main entry sits beside it in dist/.
  const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
  return join(dirname(entry), 'browser', 'standalone.js');
}
