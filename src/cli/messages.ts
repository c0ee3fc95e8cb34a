// `store-orders messages list`
import { type Noun, printsFromStore } from './command.js';

export const messages: Noun = {
  summary: 'Messages sent through the API (sendMessage)',
  verbs: {
    list: {
      usage: 'messages list',
      summary: 'all stored messages, with the account that sent each',
      description:
        'Prints every stored message as JSON, oldest first: its id, the name of the account that sent it,\n' +
        'the message, its status and when it was accepted.',
      run: printsFromStore(({ messages }) => messages.listMessages()),
    },
  },
};
