// `store-orders pets add --name NAME`
import { parseArgs } from 'node:util';
import { printJson, usageError, type Verbs, withStore } from './io.js';

export const petsVerbs: Verbs = {
  add: (context, args) => {
    const { values } = parseArgs({ args, strict: true, options: { name: { type: 'string' } } });
    const name = values.name;
    if (name === undefined || name.trim() === '') throw usageError('pets add needs --name NAME');
    withStore(context, (store) => printJson(context, store.addPet(name)));
  },
};
