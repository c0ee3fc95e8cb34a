// The API reference's static files, named by their content so that browsers may keep them forever.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { scalarBundlePath } from './scalarBundle.js';

export const ASSETS_PATH = '/docs/assets';

export interface DocsAsset {
  /** Its file name under ASSETS_PATH, with a digest of its content in it. */
  name: string;
  contentType: string;
  body: Buffer;
  /** The gzip encoding, made on first request: the bundle shrinks to under a third. */
  gzipped(): Promise<Buffer>;
}

export interface DocsAssets {
  renderer: DocsAsset;
  init: DocsAsset;
  byName: Map<string, DocsAsset>;
}

const gzipAsync = promisify(gzip);

function asset(stem: string, contentType: string, body: Buffer): DocsAsset {
  const digest = createHash('sha256').update(body).digest('base64url').slice(0, 16);
  let gzipped: Promise<Buffer> | undefined;
  return {
    name: `${stem}.${digest}.js`,
    contentType,
    body,
    gzipped: () => (gzipped ??= gzipAsync(body, { level: 9 })),
  };
}

/** Reads the renderer's bundle, which is large, so it is called on the first request for the docs, not at start. */
export function loadDocsAssets(initScript: string): DocsAssets {
  const renderer = asset('scalar', 'text/javascript; charset=utf-8', readFileSync(scalarBundlePath()));
  const init = asset('init', 'text/javascript; charset=utf-8', Buffer.from(initScript));
  return { renderer, init, byName: new Map([renderer, init].map((each) => [each.name, each])) };
}
