// `store-orders keys create --account NAME [--scopes SCOPE,…] [--expires-in DURATION | --expires-at TIME]
// | list | revoke KEY_OR_ID | roll KEY_OR_ID [--old-expires-in DURATION]`
import { displayPrefix, generateKey, isWellFormedKey, keyDigest } from '../keys.js';
import { ALL_SCOPES, type AdminStore, isScope, type KeyListing, type Principal, SCOPES, type Scopes } from '../store/store.js';
import { validAccountName } from './accounts.js';
import { exactlyOne, onlyOptions, parseId, parseOptions } from './args.js';
import { type Noun, printsFromStore } from './command.js';
import { parseDuration, parseFutureTime } from './durations.js';
import { type CliContext, CliError, UsageError, withStore } from './io.js';

/** How long a rolled key keeps working beside its successor, unless --old-expires-in says otherwise. */
const DEFAULT_OVERLAP = '24h';

export const keys: Noun = {
  summary: 'API keys: the bearer tokens of the API, stored only as digests',
  verbs: {
    create: {
      usage: 'keys create --account NAME [--scopes SCOPE,…] [--expires-in DURATION | --expires-at TIME]',
      summary: 'create a key (and the account if missing); the key alone on stdout',
      description:
        'Creates an API key for the account NAME, creating the account if it is missing.\n' +
        `With --scopes, the key may do only what those scopes allow (${SCOPES.join(', ')}); without it,\n` +
        'everything, now and in later releases. A key\'s scopes never change: other scopes are another key.\n' +
        'With --expires-in (90d, 12h, 30m, 45s) or --expires-at (2027-03-31T18:00:00Z), every server refuses\n' +
        'the key from then on, exactly as a revoked one; without either, it never expires.\n' +
        'The key is printed once, alone on standard output; what it says about the key goes to standard\n' +
        'error, so `KEY=$(store-orders keys create --account NAME)` captures the key alone and still shows\n' +
        'the rest. The key is never shown again: only its digest is stored.',
      run: createKey,
    },
    list: {
      usage: 'keys list',
      summary: 'list keys (never the keys themselves)',
      description:
        'Prints every key as JSON: its id, account, display prefix, scopes ("*": every scope), creation,\n' +
        'expiry and revocation times, and its last use (lastUsedAt: each server writes it at most once per\n' +
        'key every 15 minutes, so it may be that far behind).\n' +
        'Never the keys themselves, which are not stored.',
      run: printsFromStore(({ keys }) => keys.listKeys()),
    },
    revoke: {
      usage: 'keys revoke KEY_OR_ID',
      summary: 'revoke a key by its id or the key itself',
      description:
        'Revokes a key, given its id (from `keys list`) or the whole key. The running server refuses it\n' +
        'from the very next request. Revoking a revoked key changes nothing and says so.',
      run: (context, args) => revokeKey(context, exactlyOne(args, 'KEY_OR_ID')),
    },
    roll: {
      usage: 'keys roll KEY_OR_ID [--old-expires-in DURATION]',
      summary: 'replace a key with a new one; the old one works until it expires (24h); the new key alone on stdout',
      description:
        'Makes a new key for the same account, with the same scopes and expiry, and prints it once, alone on\n' +
        `standard output. The old key (its id from \`keys list\`, or the whole key) keeps working for\n` +
        `--old-expires-in (default ${DEFAULT_OVERLAP}; 0 revokes it at once), or until its own expiry if sooner:\n` +
        'time to put the new key everywhere the old one is. A revoked or expired key cannot be rolled.',
      run: rollKey,
    },
  },
};

async function createKey(context: CliContext, args: string[]): Promise<void> {
  const options = { account: 'string', scopes: 'string', 'expires-in': 'string', 'expires-at': 'string' } as const;
  const { account, scopes, 'expires-in': expiresIn, 'expires-at': expiresAt } = onlyOptions(args, options);
  if (account === undefined) throw new UsageError('needs --account NAME');
  if (expiresIn !== undefined && expiresAt !== undefined) throw new UsageError('give --expires-in or --expires-at, not both');
  const accountName = validAccountName(account);
  const keyScopes = scopes === undefined ? ALL_SCOPES : parseScopes(scopes);
  const now = new Date();
  const expiry =
    expiresIn !== undefined
      ? new Date(now.getTime() + parseDuration(expiresIn, '--expires-in')).toISOString()
      : expiresAt !== undefined
        ? parseFutureTime(expiresAt, '--expires-at', now)
        : undefined;
  await withStore(context, async (store) => printKey(context, await issueKey(store, accountName, keyScopes, expiry)));
}

/** `--scopes`: known scopes separated by commas; `--scopes ''` for none, a key that may call no operation that needs one. */
export function parseScopes(text: string): Scopes {
  if (text.trim() === '') return [];
  const names = text.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0) {
    throw new UsageError(`--scopes: unknown scope "${unknown[0]}"; the scopes: ${SCOPES.join(', ')}`);
  }
  return SCOPES.filter((scope) => names.includes(scope));
}

export interface IssuedKey {
  key: string;
  caller: Principal;
  listing: KeyListing;
}

/** A new key for the account `accountName`, created if missing. */
export async function issueKey(
  { keys }: AdminStore,
  accountName: string,
  scopes: Scopes = ALL_SCOPES,
  expiresAt?: string,
): Promise<IssuedKey> {
  const key = generateKey();
  const digest = keyDigest(key);
  const account = (await keys.findAccount(accountName)) ?? (await keys.createAccount(accountName));
  const listing = await keys.createKey({ accountId: account.id, digest, displayPrefix: displayPrefix(key), scopes, expiresAt });
  return {
    key,
    caller: { accountId: account.id, accountName: account.name, keyId: listing.id, keyDigest: digest, scopes },
    listing,
  };
}

/** The key alone on standard output, what to know of it on standard error. */
export function printKey(context: CliContext, { key, listing }: Pick<IssuedKey, 'key' | 'listing'>, made = 'Created'): void {
  const { id, account, scopes, expiresAt } = listing;
  const what = scopes === ALL_SCOPES ? 'every scope' : scopes.length === 0 ? 'no scope' : `the scopes ${scopes.join(', ')}`;
  const until = expiresAt === undefined ? 'it never expires' : `it expires at ${expiresAt}`;
  context.note(`${made} key ${id} (${displayPrefix(key)}) for account "${account}", with ${what}; ${until}.`);
  context.note('It is shown once and never again: store it now.');
  context.out(key);
}

/** A key's id or the whole key, checked before the database is opened, as every usage mistake is. */
function keyOrIdOf(keyOrId: string): { id: number } | { digest: Buffer } {
  if (/^[0-9]+$/.test(keyOrId)) return { id: parseId(keyOrId, 'a key id') };
  if (!isWellFormedKey(keyOrId)) throw new UsageError('KEY_OR_ID must be a key id from `keys list` or a whole key');
  return { digest: keyDigest(keyOrId) };
}

async function revokeKey(context: CliContext, keyOrId: string): Promise<void> {
  const which = keyOrIdOf(keyOrId);
  await withStore(context, async ({ keys }) => {
    const outcome = 'id' in which ? await keys.revokeKeyById(which.id) : await keys.revokeKeyByDigest(which.digest);
    if (outcome === 'missing') throw new CliError('no such key');
    context.out(outcome === 'revoked' ? 'Key revoked.' : 'Key was already revoked.');
  });
}

async function rollKey(context: CliContext, args: string[]): Promise<void> {
  const { values, positionals } = parseOptions(args, { 'old-expires-in': 'string' });
  const keyOrId = exactlyOne(positionals, 'KEY_OR_ID');
  const which = keyOrIdOf(keyOrId);
  const overlap = parseDuration(values['old-expires-in'] ?? DEFAULT_OVERLAP, '--old-expires-in', { allowZero: true });
  const key = generateKey();
  const newKey = { digest: keyDigest(key), displayPrefix: displayPrefix(key) };
  const oldEnds = overlap === 0 ? 'now' : { expiresAt: new Date(Date.now() + overlap).toISOString() };
  await withStore(context, async ({ keys }) => {
    const rolled =
      'id' in which ? await keys.rollKeyById(which.id, newKey, oldEnds) : await keys.rollKeyByDigest(which.digest, newKey, oldEnds);
    if (rolled.outcome === 'missing') throw new CliError('no such key');
    if (rolled.outcome === 'inactive') throw new CliError('the key is revoked or expired: make a new one with `keys create`');
    const { old } = rolled;
    const ends = old.revokedAt !== undefined ? 'is revoked' : `works until ${old.expiresAt}`;
    context.note(`Key ${old.id} (${old.displayPrefix}) ${ends}.`);
    printKey(context, { key, listing: rolled.key }, 'Rolled it into');
  });
}
