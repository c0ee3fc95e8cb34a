// The PostgreSQL server the PostgreSQL scenarios run on, and the databases they make there.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './contenders.mjs';
import { onEnd, seeded } from './lifecycle.mjs';
import { root } from './settings.mjs';

let server;

/**
 * The PostgreSQL server to bench on: BENCH_POSTGRES_URL's, or a throwaway one, the same for every scenario
 * of a run; undefined and why, if none.
 */
export function postgresServer() {
  server ??= startedServer();
  return server;
}

async function startedServer() {
  if (process.env.BENCH_POSTGRES_URL) return { url: process.env.BENCH_POSTGRES_URL };
  const folder = mkdtempSync(join(tmpdir(), 'store-orders-bench-pg-'));
  const script = `${root}scripts/throwaway-postgres.sh`;
  try {
    const url = execFileSync(script, ['start', folder, String(await freePort())], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
    onEnd(() => {
      execFileSync(script, ['stop', folder], { stdio: 'ignore' });
      rmSync(folder, { recursive: true, force: true });
    });
    return { url };
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    return { reason: String(error.stderr ?? error.message).trim().split('\n').at(-1) };
  }
}

/** Runs SQL as the server's administrator (databases cannot be created in a transaction or a pool). */
async function asAdmin(url, sql) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const seeds = new Map();

/**
 * `orderCount` orders moved onto PostgreSQL as a user moves up (store-orders copy), into a template database,
 * once per run; `database()` makes a new database from it for each contender. All are dropped when the
 * bench ends.
 */
export function seededPostgres(adminUrl, orderCount) {
  const name = `${adminUrl} ${orderCount}`;
  if (!seeds.has(name)) seeds.set(name, seedPostgres(adminUrl, orderCount));
  return seeds.get(name);
}

async function seedPostgres(adminUrl, orderCount) {
  const { path, key } = await seeded(orderCount);
  const name = (suffix) => `store_orders_bench_${process.pid}_${orderCount}_${suffix}`;
  const urlOf = (database) => Object.assign(new URL(adminUrl), { pathname: `/${database}` }).href;
  const create = async (database, template) => {
    await asAdmin(adminUrl, `CREATE DATABASE ${database}${template ? ` TEMPLATE ${template}` : ''}`);
    // Run synchronously (also from `fail`), before the cluster the bench started is stopped.
    onEnd(
      () =>
        execFileSync('psql', ['-X', '-q', '-d', adminUrl, '-c', `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`], {
          stdio: 'ignore',
        }),
      { first: true },
    );
  };
  await create(name('seed'));
  execFileSync(process.execPath, [`${root}dist/cli/main.js`, 'copy', '--to', urlOf(name('seed'))], {
    env: { ...process.env, DATABASE_URL: path },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let copies = 0;
  return {
    key,
    seed: urlOf(name('seed')),
    async database() {
      const database = name(++copies);
      await create(database, name('seed'));
      return urlOf(database);
    },
  };
}
