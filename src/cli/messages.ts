// `store-orders messages list`
import { printJson, type Verbs, withStore } from './io.js';

export const messagesVerbs: Verbs = {
  list: (context) => withStore(context, (store) => printJson(context, store.listMessages())),
};
