// `store-orders deprecations`: each deprecated operation of the contract, its sunset, and which accounts
// still call it (as flushed by the server: every few seconds and when it stops).
import { deprecationPolicies } from '../contract/deprecation.js';
import { loadContract, operationsOf } from '../contract/document.js';
import { noArguments } from './args.js';
import type { Command, Noun } from './command.js';
import { type CliContext, printJson, withStore } from './io.js';

const DESCRIPTION =
  'Prints each deprecated operation of the contract as JSON: its deprecatedAt and sunsetAt (from\n' +
  'openapi.yaml) and its callers, one per account, with firstCallAt, lastCallAt and count. It shows\n' +
  'what the server has written: every DEPRECATED_CALLS_FLUSH_SECONDS, and when it stops.';

const report = (usage: string): Command => ({
  usage,
  summary: 'each deprecated operation, its sunset, and the accounts still calling it',
  description: DESCRIPTION,
  run: async (context, args) => {
    noArguments(args);
    await printReport(context);
  },
});

// The noun alone is the report; `list` too, like the other nouns.
export const deprecations: Noun = {
  summary: 'Deprecated operations and who still calls them',
  bare: report('deprecations'),
  verbs: { list: { ...report('deprecations list'), summary: 'the same as deprecations' } },
};

async function printReport(context: CliContext): Promise<void> {
  const policies = deprecationPolicies(operationsOf(loadContract().document));
  await withStore(context, async ({ telemetry }) => {
    const calls = await telemetry.listDeprecatedCalls();
    printJson(
      context,
      [...policies.values()].map(({ operationId, deprecatedAt, sunsetAt }) => ({
        operationId,
        deprecatedAt: deprecatedAt.toISOString(),
        ...(sunsetAt && { sunsetAt: sunsetAt.toISOString() }),
        callers: calls
          .filter((call) => call.operationId === operationId)
          .map(({ account, firstCallAt, lastCallAt, count }) => ({
            account,
            firstCallAt,
            lastCallAt,
            count,
          })),
      })),
    );
  });
}
