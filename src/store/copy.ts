// `store-orders copy`: everything in one database, copied into a new one of any backend, the same or
// another, through the source's export and the target's import (backend.ts). The source is read from one
// moment, so a server may go on writing to it meanwhile; the target is written in one transaction, all or
// nothing, in batches, so the memory taken does not grow with the data. Ids, key digests and revocations,
// messages, Idempotency-Keys and counts carry over as they are; the target keeps an identity of its own,
// so its list's versions never repeat the source's.
import type { CopySource, CopyTarget, TableShape } from './copying.js';
import { backendOf, type BackendSettings, type DatabaseLocation } from './backends.js';

/** How many rows of each table were copied, in the order they were. */
export type CopyCounts = Record<string, number>;

/** Copies `from` into `to`, each opened with its backend's `settings` (a command's). */
export async function copyDatabase(
  from: DatabaseLocation,
  to: DatabaseLocation,
  settings: BackendSettings,
): Promise<CopyCounts> {
  const source = await backendOf(from).exportFrom(from, settings[from.kind]);
  try {
    const target = await backendOf(to).importInto(to, settings[to.kind]);
    try {
      return await copyTables(source, target);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

async function copyTables(source: CopySource, target: CopyTarget): Promise<CopyCounts> {
  const tables = inDependencyOrder(source.tables);
  await target.begin(tables);
  const counts: CopyCounts = {};
  for (const table of tables) {
    let copied = 0;
    for await (const rows of source.rows(table)) {
      await target.write(table, rows);
      copied += rows.length;
    }
    counts[table.name] = copied;
  }
  await target.commit();
  return counts;
}

/** Each table after those its foreign keys refer to; otherwise by name. */
export function inDependencyOrder(tables: readonly TableShape[]): TableShape[] {
  const ordered: TableShape[] = [];
  const listed = new Set(tables.map(({ name }) => name));
  const placed = new Set<string>();
  const isPlaced = (name: string) => placed.has(name) || !listed.has(name);
  let left = [...tables].sort((a, b) => a.name.localeCompare(b.name));
  while (left.length > 0) {
    const ready = left.filter(({ name, references }) => references.every((other) => other === name || isPlaced(other)));
    if (ready.length === 0) throw new Error(`the tables ${left.map(({ name }) => name).join(', ')} refer to each other`);
    for (const table of ready) placed.add(table.name);
    ordered.push(...ready);
    left = left.filter((table) => !placed.has(table.name));
  }
  return ordered;
}
