// What an operation's handler is: typed input in, a documented answer out, with its part of the store and
// the caller. The same for every version of the API, each typed from its own contract.
import type { ApiVersion } from '../contract/document.js';
import type { AnyOperationId, Input, OperationAnswer, OperationId } from '../contract/types.js';
import type { MessageStore, OrderStore, PetStore, Principal, Store, WebhookStore } from '../store/store.js';

/** What the webhook operations are given: the store's endpoints, and the operator's rules for them. */
export interface WebhookEndpoints {
  webhooks: WebhookStore;
  /** The URL as it will be reached, if it may be registered; else why not. */
  checkUrl(url: string): Promise<{ url: string } | { refused: string }>;
  /** A new signing secret, `whsec_…`. */
  newSecret(): string;
  /** Endpoints per account at most. */
  maxPerAccount: number;
  /** How long events are kept: how far back a replay reaches. */
  retentionMs: number;
}

/**
 * The one aggregate of the store each operation is given, in every version (the webhook operations with the
 * operator's rules for endpoints); a missing one fails `tsc`.
 */
export interface StoreParts extends Record<AnyOperationId, unknown> {
  listOrders: OrderStore;
  cancelOrder: OrderStore;
  sendMessage: MessageStore;
  getMessage: MessageStore;
  getPetById: PetStore;
  createWebhookEndpoint: WebhookEndpoints;
  listWebhookEndpoints: WebhookEndpoints;
  getWebhookEndpoint: WebhookEndpoints;
  updateWebhookEndpoint: WebhookEndpoints;
  deleteWebhookEndpoint: WebhookEndpoints;
  rotateWebhookEndpointSecret: WebhookEndpoints;
  listWebhookDeliveries: WebhookEndpoints;
  replayWebhookEvents: WebhookEndpoints;
}

export function storePartsOf(store: Store, endpoints: WebhookEndpoints): StoreParts {
  const { orders, messages, pets } = store;
  return {
    listOrders: orders,
    cancelOrder: orders,
    sendMessage: messages,
    getMessage: messages,
    getPetById: pets,
    createWebhookEndpoint: endpoints,
    listWebhookEndpoints: endpoints,
    getWebhookEndpoint: endpoints,
    updateWebhookEndpoint: endpoints,
    deleteWebhookEndpoint: endpoints,
    rotateWebhookEndpointSecret: endpoints,
    listWebhookDeliveries: endpoints,
    replayWebhookEvents: endpoints,
  };
}

export interface Dependencies<Op extends AnyOperationId = AnyOperationId> {
  store: StoreParts[Op];
  principal: Principal;
  now: () => Date;
  /**
   * The request's W3C `traceparent` (its trace, its span): what a write it makes keeps of its trace. Made
   * when asked, by the operations that write it.
   */
  traceparent: () => string;
}

export type Handler<Op extends OperationId<V>, V extends ApiVersion = 'v1'> = (
  input: Input<Op, V>,
  dependencies: Dependencies<Op & AnyOperationId>,
) => OperationAnswer<Op, V> | Promise<OperationAnswer<Op, V>>;

/** A handler that serves an operation of v1 and v2 alike, under the same rules. */
export type SharedHandler<Op extends OperationId<'v1'> & OperationId<'v2'>> = Handler<Op, 'v1'> & Handler<Op, 'v2'>;

/** One handler per operationId of version V's contract. */
export type Handlers<V extends ApiVersion = 'v1'> = { [Op in OperationId<V>]: Handler<Op, V> };

/** Every version's handlers. */
export type HandlersByVersion = { [V in ApiVersion]: Handlers<V> };

const KEY_CHECKED_BY_STORE = new WeakSet<object>();

/**
 * Declares that `handler` answers only after its one store call made for the caller, and that this call
 * checks the caller's key itself (UNAUTHORIZED, answered 401): the pipeline then runs it on a key seen
 * before without looking the key up first (http/auth.ts). Any other handler's key is looked up before it
 * runs. docs/design.md, "Where the key is checked", says which writes do and what a new one must do.
 */
export function checksKeyInStore<H extends object>(handler: H): H {
  KEY_CHECKED_BY_STORE.add(handler);
  return handler;
}

/** Whether `handler` was declared with checksKeyInStore. */
export function isKeyCheckedByStore(handler: object): boolean {
  return KEY_CHECKED_BY_STORE.has(handler);
}
