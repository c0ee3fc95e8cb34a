// `store-orders messages list [--status S] [--limit N] | retry ID`
import { MESSAGE_STATUSES, type MessageFilter, type MessageStatus } from '../store/store.js';
import { exactlyOne, onlyOptions, parseId } from './args.js';
import { type Noun, oneOf } from './command.js';
import { type CliContext, CliError, printJson, UsageError, withStore } from './io.js';

export const messages: Noun = {
  summary: 'Messages sent through the API (sendMessage), and their delivery',
  verbs: {
    list: {
      usage: `messages list [--status ${MESSAGE_STATUSES.join('|')}] [--limit N]`,
      summary: 'stored messages with the account that sent each and their delivery, oldest first',
      description: [
        'Prints the stored messages as JSON, oldest first: each one\'s id, the name of the account that sent',
        'it, the message, its status, when it was accepted and when its status was last set, the delivery',
        'attempts made and the error of the last one that failed (lastError, when there is one).',
        '',
        `  --status STATUS   only the messages of this status: ${oneOf(MESSAGE_STATUSES)}`,
        '  --limit N         the first N only (a positive whole number)',
      ].join('\n'),
      run: listMessages,
    },
    retry: {
      usage: 'messages retry ID',
      summary: 'put a failed message back in the queue',
      description:
        'Puts the failed message ID back in the queue, with every attempt allowed again: the servers\n' +
        'deliver it as a new one. Its lastError stays until an attempt fails again. A queued message is left\n' +
        'as it is; a delivered one is refused.',
      run: (context, args) => retryMessage(context, exactlyOne(args, 'message ID')),
    },
  },
};

async function listMessages(context: CliContext, args: string[]): Promise<void> {
  const { status, limit } = onlyOptions(args, { status: 'string', limit: 'string' });
  const filter: MessageFilter = {};
  if (status !== undefined) filter.status = messageStatus(status);
  if (limit !== undefined) filter.limit = parseId(limit, '--limit');
  await withStore(context, async (store) => printJson(context, await store.messages.listMessages(filter)));
}

function messageStatus(raw: string): MessageStatus {
  const status = MESSAGE_STATUSES.find((one) => one === raw);
  if (status === undefined) throw new UsageError(`--status must be ${oneOf(MESSAGE_STATUSES)}, got "${raw}"`);
  return status;
}

async function retryMessage(context: CliContext, messageId: string): Promise<void> {
  // Checked before the database is opened, as every usage mistake is.
  if (!/^msg_[0-9A-Za-z]{22}$/.test(messageId)) {
    throw new UsageError(`the message ID must be msg_ and 22 letters or digits, got "${messageId}"`);
  }
  await withStore(context, async (store) => {
    switch (await store.messages.retryMessage(messageId)) {
      case 'requeued':
        context.out(`Message ${messageId} is queued again.`);
        return;
      case 'queued':
        context.out(`Message ${messageId} is queued already.`);
        return;
      case 'delivered':
        throw new CliError(`message ${messageId} was delivered; only a failed message can be retried`);
      case 'missing':
        throw new CliError(`no message ${messageId}`);
    }
  });
}
