// CORS_ORIGINS: the browser origins allowed to call the API, each exactly as a browser sends it in
// `Origin` (scheme://host[:port], no path). Unset or empty turns CORS off.
import { ConfigError } from './configError.js';

export function parseCorsOrigins(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  const origins = raw
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  for (const origin of origins) {
    // A wildcard would let every page on the web call the API with any key it holds.
    if (origin === '*') throw new ConfigError('CORS_ORIGINS must list each origin; "*" is not accepted');
    const exact = originOf(origin);
    if (exact !== origin) {
      const hint = exact === undefined ? '' : `; did you mean "${exact}"?`;
      throw new ConfigError(
        `CORS_ORIGINS must be a comma-separated list of origins such as https://app.example:8443 (scheme://host[:port], no path), got "${origin}"${hint}`,
      );
    }
  }
  return [...new Set(origins)];
}

/** The origin the URL names, as a browser spells it; undefined for what is no http(s) URL. */
function originOf(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
}
