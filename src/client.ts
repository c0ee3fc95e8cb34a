// The typed client that ships with the package (`store-orders/client`): openapi-fetch over the types generated
// from openapi.yaml, so paths, parameters, bodies, answers and Error bodies are all checked by the compiler.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from '../generated/openapi.js';

export type { components, paths };
export type StoreOrdersClient = Client<paths>;
/** What every failed call answers with: `error` in a result whose `response.ok` is false. */
export type ErrorBody = components['schemas']['Error'];
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
