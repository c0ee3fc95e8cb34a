// vitest global setup: a second, independent SDK generated from openapi.yaml by @hey-api/openapi-ts, the
// way a client team would generate it. test/clients/heyApi type-checks it and drives the server with it.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createClient } from '@hey-api/openapi-ts';

export const HEY_API_SDK = fileURLToPath(new URL('../../test-artifacts/hey-api-sdk', import.meta.url));

export default async function generateHeyApiSdk(): Promise<void> {
  rmSync(HEY_API_SDK, { recursive: true, force: true });
  await createClient({
    input: fileURLToPath(new URL('../../openapi.yaml', import.meta.url)),
    output: { path: HEY_API_SDK, module: { extension: '.js' } },
    plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
    // A document the generator cannot read exactly fails the setup, before any test runs.
    parser: { validate_EXPERIMENTAL: 'strict' },
    logs: { level: 'warn', file: false },
  });
}
