// Part of the build: copies Scalar's standalone bundle next to the built docs module, so that a packed
// store-orders serves /docs without @scalar/api-reference installed (src/docs/scalarBundle.ts).
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
const target = new URL('../dist/docs/', import.meta.url);
mkdirSync(target, { recursive: true });
copyFileSync(join(dirname(entry), 'browser', 'standalone.js'), new URL('scalar-api-reference.js', target));
