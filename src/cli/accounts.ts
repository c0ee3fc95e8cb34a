// `store-orders accounts create NAME`
import { exactlyOne } from './args.js';
import { CliError, printJson, usageError, type Verbs, withStore } from './io.js';

export const accountsVerbs: Verbs = {
  create: (context, args) => {
    const name = validAccountName(exactlyOne(args, 'account NAME'));
    withStore(context, (store) => {
      if (store.findAccount(name)) throw new CliError(`account "${name}" already exists`);
      printJson(context, store.createAccount(name));
    });
  },
};

export function validAccountName(name: string): string {
  if (name.trim() === '' || name.length > 200) throw usageError('an account NAME is 1 to 200 characters');
  return name;
}
