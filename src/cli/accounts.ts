// `store-orders accounts create NAME`
import { exactlyOne } from './args.js';
import type { Noun } from './command.js';
import { CliError, printJson, UsageError, withStore } from './io.js';

export const accounts: Noun = {
  summary: 'Accounts: who holds API keys and sends messages',
  verbs: {
    create: {
      usage: 'accounts create NAME',
      summary: 'create an account',
      description:
        'Creates an account named NAME (1 to 200 characters) and prints it as JSON. A name is taken once.\n' +
        '`keys create --account NAME` also creates a missing account.',
      run: async (context, args) => {
        const name = validAccountName(exactlyOne(args, 'account NAME'));
        await withStore(context, async ({ keys }) => {
          if (await keys.findAccount(name)) throw new CliError(`account "${name}" already exists`);
          printJson(context, await keys.createAccount(name));
        });
      },
    },
  },
};

export function validAccountName(name: string): string {
  if (name.trim() === '' || name.length > 200) throw new UsageError('an account NAME is 1 to 200 characters');
  return name;
}
