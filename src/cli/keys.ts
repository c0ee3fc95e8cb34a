// `store-orders keys create --account NAME | list | revoke KEY_OR_ID`
import { parseArgs } from 'node:util';
import { displayPrefix, generateKey, isWellFormedKey, keyDigest } from '../keys.js';
import { validAccountName } from './accounts.js';
import { exactlyOne, parseId } from './args.js';
import { type CliContext, CliError, printJson, usageError, type Verbs, withStore } from './io.js';

export const keysVerbs: Verbs = {
  create: createKey,
  list: (context) => withStore(context, (store) => printJson(context, store.listKeys())),
  revoke: (context, args) => revokeKey(context, exactlyOne(args, 'KEY_OR_ID')),
};

function createKey(context: CliContext, args: string[]): void {
  const { values } = parseArgs({ args, options: { account: { type: 'string' } }, strict: true });
  if (values.account === undefined) throw usageError('keys create needs --account NAME');
  const accountName = validAccountName(values.account);
  const key = generateKey();
  withStore(context, (store) => {
    const account = store.findAccount(accountName) ?? store.createAccount(accountName);
    const listing = store.createKey(account.id, keyDigest(key), displayPrefix(key));
    context.out(`Created key ${listing.id} (${listing.displayPrefix}) for account "${account.name}".`);
    context.out('It is shown once and never again: store it now.');
    context.out(key);
  });
}

function revokeKey(context: CliContext, keyOrId: string): void {
  withStore(context, (store) => {
    let outcome: ReturnType<typeof store.revokeKeyById>;
    if (/^[0-9]+$/.test(keyOrId)) outcome = store.revokeKeyById(parseId(keyOrId, 'a key id'));
    else if (isWellFormedKey(keyOrId)) outcome = store.revokeKeyByDigest(keyDigest(keyOrId));
    else throw usageError('KEY_OR_ID must be a key id from `keys list` or a whole key');
    if (outcome === 'missing') throw new CliError('no such key');
    context.out(outcome === 'revoked' ? 'Key revoked.' : 'Key was already revoked.');
  });
}
