// The two backends the store behaviour suite runs on: a SQLite file in a folder of its own, and a
// database of its own on the PostgreSQL of TEST_DATABASE_URL (skipped without one).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseLocation } from '../../src/store/backends.js';
import { openStore, type StoreOptions } from '../../src/store/open.js';
import type { AdminStore } from '../../src/store/store.js';
import { scratchPostgres, TEST_DATABASE_URL } from './postgres.js';

/** A new, empty database. Each store opened on it stands for one more server process sharing it. */
export interface ScratchStore {
  location: DatabaseLocation;
  open(options?: StoreOptions): Promise<AdminStore>;
  drop(): Promise<void>;
}

export interface StoreBackend {
  name: 'sqlite' | 'postgres';
  available: boolean;
  create(): Promise<ScratchStore>;
}

const opener = (location: DatabaseLocation) => (options: StoreOptions = {}) => openStore(location, options);

export const STORE_BACKENDS: readonly StoreBackend[] = [
  {
    name: 'sqlite',
    available: true,
    create() {
      const folder = mkdtempSync(join(tmpdir(), 'store-orders-backend-'));
      const location: DatabaseLocation = { kind: 'sqlite', path: join(folder, 'store.db') };
      return Promise.resolve({
        location,
        open: opener(location),
        drop: () => Promise.resolve(rmSync(folder, { recursive: true, force: true })),
      });
    },
  },
  {
    name: 'postgres',
    available: TEST_DATABASE_URL !== undefined,
    async create() {
      const database = await scratchPostgres();
      const location: DatabaseLocation = { kind: 'postgres', url: database.url };
      return { location, open: opener(location), drop: () => database.drop() };
    },
  },
];
