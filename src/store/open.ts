// The one way to a store: the backend that holds the location (backends.ts) opens its repositories, and
// compose.ts makes the store of them. The server, the CLI, the bench and the tests all open theirs here.
import type { OpenOptions } from './backend.js';
import { backendOf, type BackendSettings, type DatabaseLocation } from './backends.js';
import { composeStore } from './compose.js';
import type { AdminStore } from './store.js';

/** Lists longer than this are streamed rather than held in memory. */
export const STREAM_ORDERS_ABOVE = 10_000;
/** How many long lists may be streamed at once, unless MAX_STREAMED_LISTS says otherwise. */
export const MAX_STREAMED_LISTS = 8;

export interface StoreOptions extends Partial<OpenOptions> {
  /**
   * Each backend's own settings, as loadStoreSettings reads them; only the location's backend's are used.
   * What is not given is the backend's default for a command (the CLI's).
   */
  settings?: { [Kind in keyof BackendSettings]?: Partial<BackendSettings[Kind]> };
}

/** Opens the store and brings its schema up to date; a failure to open rejects. */
export async function openStore(location: DatabaseLocation, options: StoreOptions = {}): Promise<AdminStore> {
  const backend = backendOf(location);
  const settings = { ...(backend.settings({}, 'command') as object), ...options.settings?.[location.kind] };
  const repositories = await backend.open(location, settings, {
    create: options.create ?? true,
    now: options.now ?? (() => new Date()),
    streamOrdersAbove: options.streamOrdersAbove ?? STREAM_ORDERS_ABOVE,
    maxStreamedLists: options.maxStreamedLists ?? MAX_STREAMED_LISTS,
    ...(options.onMigrated && { onMigrated: options.onMigrated }),
  });
  return composeStore(repositories);
}
