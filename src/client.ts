// The typed client that ships with the package (`store-orders/client`): openapi-fetch over the types generated
// from each version's contract, so paths, parameters, bodies, answers and Error bodies are all checked by the
// compiler. `createStoreOrdersClient` speaks API v1 (openapi.yaml), `createStoreOrdersClientV2` API v2
// (openapi.v2.yaml); the two can be used side by side against one server.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from '../generated/openapi.js';
import type { components as componentsV2, paths as pathsV2 } from '../generated/openapi.v2.js';

export type { components, componentsV2, paths, pathsV2 };
export type StoreOrdersClient = Client<paths>;
export type StoreOrdersClientV2 = Client<pathsV2>;
/** What every failed call answers with: `error` in a result whose `response.ok` is false. The same in v2. */
export type ErrorBody = components['schemas']['Error'];
/** One page of v2's listOrders: `data`, `hasMore`, and `nextCursor` while `hasMore` is true. */
export type OrderPage = componentsV2['schemas']['OrderPage'];
export type StoreOrdersClientOptions = Omit<ClientOptions, 'baseUrl' | 'headers'>;

/**
 * `baseUrl` is the API's root as openapi.yaml's `servers` write it, `/v1` included
 * (`http://127.0.0.1:3000/v1`); `key` is an API key from `store-orders keys create`, sent as a bearer token.
 */
export function createStoreOrdersClient(
  baseUrl: string,
  key: string,
  options: StoreOrdersClientOptions = {},
): StoreOrdersClient {
  return createClient<paths>({ ...options, baseUrl, headers: { Authorization: `Bearer ${key}` } });
}

/** The same for API v2: `baseUrl` with `/v2` included (`http://127.0.0.1:3000/v2`). */
export function createStoreOrdersClientV2(
  baseUrl: string,
  key: string,
  options: StoreOrdersClientOptions = {},
): StoreOrdersClientV2 {
  return createClient<pathsV2>({ ...options, baseUrl, headers: { Authorization: `Bearer ${key}` } });
}
