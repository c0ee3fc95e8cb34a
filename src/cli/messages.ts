// `store-orders messages list`
import { noArguments } from './args.js';
import type { Noun } from './command.js';
import { printJson, withStore } from './io.js';

export const messages: Noun = {
  summary: 'Messages sent through the API (sendMessage)',
  verbs: {
    list: {
      usage: 'messages list',
      summary: 'all stored messages, with the account that sent each',
      description:
        'Prints every stored message as JSON, oldest first: its id, the name of the account that sent it,\n' +
        'the message, its status and when it was accepted.',
      run: (context, args) => {
        noArguments(args);
        withStore(context, (store) => printJson(context, store.listMessages()));
      },
    },
  },
};
