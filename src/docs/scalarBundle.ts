// Where the API reference's renderer comes from: Scalar's standalone browser bundle, one self-contained file.
import { fileURLToPath } from 'node:url';

/**
 * The copy committed under generated/ (scripts/update-docs-bundle.mjs writes it; source.json beside it
 * names its version). It is not installed from npm: @scalar/api-reference pulls some 260 packages that
 * want a newer Node than the project supports, for one file that only browsers run. The path is the same
 * from src/docs/ and from dist/docs/, and a packed store-orders carries generated/.
 */
export function scalarBundlePath(): string {
  return fileURLToPath(new URL('../../generated/scalar-api-reference/standalone.js', import.meta.url));
}
