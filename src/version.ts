// The one version of the service: package.json's, which a test holds equal to openapi.yaml's info.version.
// Read at start from the package's own package.json, one folder above both src/ and dist/.
import { readFileSync } from 'node:fs';

export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
