// `store-orders keys create --account NAME | list | revoke KEY_OR_ID`
import { displayPrefix, generateKey, isWellFormedKey, keyDigest } from '../keys.js';
import { validAccountName } from './accounts.js';
import { exactlyOne, onlyOptions, parseId } from './args.js';
import { type Noun, printsFromStore } from './command.js';
import type { AdminStore, Principal } from '../store/store.js';
import { type CliContext, CliError, UsageError, withStore } from './io.js';

export const keys: Noun = {
  summary: 'API keys: the bearer tokens of the API, stored only as digests',
  verbs: {
    create: {
      usage: 'keys create --account NAME',
      summary: 'create a key (and the account if missing); the key alone on stdout',
      description:
        'Creates an API key for the account NAME, creating the account if it is missing.\n' +
        'The key is printed once, alone on standard output; what it says about the key goes to standard\n' +
        'error, so `KEY=$(store-orders keys create --account NAME)` captures the key alone and still shows\n' +
        'the rest. The key is never shown again: only its digest is stored.',
      run: createKey,
    },
    list: {
      usage: 'keys list',
      summary: 'list keys (never the keys themselves)',
      description:
        'Prints every key as JSON: its id, account, display prefix, creation and revocation times.\n' +
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
  },
};

async function createKey(context: CliContext, args: string[]): Promise<void> {
  const { account } = onlyOptions(args, { account: 'string' });
  if (account === undefined) throw new UsageError('needs --account NAME');
  const accountName = validAccountName(account);
  await withStore(context, async (store) => printKey(context, await issueKey(store, accountName)));
}

export interface IssuedKey {
  key: string;
  caller: Principal;
}

/** A new key for the account `accountName`, created if missing. */
export async function issueKey({ keys }: AdminStore, accountName: string): Promise<IssuedKey> {
  const key = generateKey();
  const digest = keyDigest(key);
  const account = (await keys.findAccount(accountName)) ?? (await keys.createAccount(accountName));
  const listing = await keys.createKey(account.id, digest, displayPrefix(key));
  return { key, caller: { accountId: account.id, accountName: account.name, keyId: listing.id, keyDigest: digest } };
}

/** The key alone on standard output, what to know of it on standard error. */
export function printKey(context: CliContext, { key, caller }: IssuedKey): void {
  context.note(`Created key ${caller.keyId} (${displayPrefix(key)}) for account "${caller.accountName}".`);
  context.note('It is shown once and never again: store it now.');
  context.out(key);
}

async function revokeKey(context: CliContext, keyOrId: string): Promise<void> {
  // Checked before the database is opened, as every usage mistake is.
  const byId = /^[0-9]+$/.test(keyOrId);
  if (byId) parseId(keyOrId, 'a key id');
  else if (!isWellFormedKey(keyOrId)) {
    throw new UsageError('KEY_OR_ID must be a key id from `keys list` or a whole key');
  }
  await withStore(context, async ({ keys }) => {
    const outcome = byId
      ? await keys.revokeKeyById(Number(keyOrId))
      : await keys.revokeKeyByDigest(keyDigest(keyOrId));
    if (outcome === 'missing') throw new CliError('no such key');
    context.out(outcome === 'revoked' ? 'Key revoked.' : 'Key was already revoked.');
  });
}
