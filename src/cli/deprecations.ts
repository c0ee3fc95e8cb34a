// `store-orders deprecations`: each deprecated operation of the contract, its sunset, and which accounts
// still call it (as flushed by the server: every few seconds and when it stops).
import { deprecationPolicies } from '../contract/deprecation.js';
import { loadContract, operationsOf } from '../contract/document.js';
import { type CliContext, printJson, usageError, type Verbs, withStore } from './io.js';

export const deprecationsVerbs: Verbs = {
  // The noun alone is the report; `list` too, like the other nouns.
  '': report,
  list: report,
};

function report(context: CliContext, args: string[]): void {
  if (args.length > 0) throw usageError('deprecations takes no arguments');
  const policies = deprecationPolicies(operationsOf(loadContract().document));
  withStore(context, (store) => {
    const calls = store.listDeprecatedCalls();
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
