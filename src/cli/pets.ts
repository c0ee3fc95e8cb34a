// `store-orders pets add --name NAME`
import { onlyOptions } from './args.js';
import type { Noun } from './command.js';
import { printJson, UsageError, withStore } from './io.js';

export const pets: Noun = {
  summary: 'Pets, which the (deprecated) getPetById reads',
  verbs: {
    add: {
      usage: 'pets add --name NAME',
      summary: 'create a pet',
      description: 'Creates a pet named NAME and prints it as JSON, with the id the API reads it by.',
      run: async (context, args) => {
        const { name } = onlyOptions(args, { name: 'string' });
        if (name === undefined || name.trim() === '') throw new UsageError('needs --name NAME');
        await withStore(context, async ({ pets }) => printJson(context, await pets.addPet(name)));
      },
    },
  },
};
