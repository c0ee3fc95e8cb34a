// What a copy between databases is made of, beneath every backend and the copy itself (copy.ts): the tables
// and rows a source gives and a target takes, and the rules each backend's export and import keep.

/** One row of a table, by column name, as its backend's driver reads it. */
export type Row = Record<string, unknown>;

/** A table as a copy reads it: its columns, and its primary key, which the rows come in the order of. */
export interface TableShape {
  name: string;
  columns: readonly string[];
  /** The tables its foreign keys refer to, which a copy fills first. */
  references: readonly string[];
}

/** Everything in one database, read from one moment; its schema is this build's. */
export interface CopySource {
  /** Every table of data (not the backend's own bookkeeping, such as the database's identity). */
  tables: readonly TableShape[];
  /** The table's rows in batches, by primary key. */
  rows(table: TableShape): Iterable<Row[]> | AsyncIterable<Row[]>;
  close(): Promise<void>;
}

/** A database with this build's schema and no data, being written in one transaction. */
export interface CopyTarget {
  /** Refuses (TargetNotEmptyError) unless each table is there with these columns, and empty. */
  begin(tables: readonly TableShape[]): Promise<void>;
  /** Rows of another backend's are taken as this backend's columns hold them (0 and 1 as booleans, …). */
  write(table: TableShape, rows: readonly Row[]): Promise<void>;
  /** Commits; ids issued from now on follow the copied ones. */
  commit(): Promise<void>;
  /** Rolls back, and lets go of the database. */
  close(): Promise<void>;
}

/** Rows read, and written, at once. */
export const BATCH_ROWS = 10_000;

export class TargetNotEmptyError extends Error {
  override name = 'TargetNotEmptyError';
}

/** A source whose schema is not this build's: its tables may not be the target's. */
export class SourceSchemaError extends Error {
  override name = 'SourceSchemaError';
}

/** Refuses a source whose schema is `version` when this build's is `current`. */
export function checkSourceVersion(version: number, current: number): void {
  if (version < current) {
    throw new SourceSchemaError(
      `the source's schema is version ${version}, older than this build's (${current}): bring it up to date ` +
        'first with `store-orders init` (DATABASE_URL naming it), or with a server of this build',
    );
  }
  if (version > current) {
    throw new SourceSchemaError(
      `the source's schema is version ${version}, newer than this build knows (${current}); upgrade store-orders`,
    );
  }
}

/** Refuses the target's table unless it has the source's columns (`columns`, undefined: no table) and no rows. */
export function checkTargetTable(table: TableShape, columns: readonly string[] | undefined, holdsRows: boolean): void {
  const expected = [...table.columns].sort().join(', ');
  if (columns === undefined || [...columns].sort().join(', ') !== expected) {
    throw new Error(`the target's table ${table.name} does not have the source's columns (${expected})`);
  }
  if (holdsRows) throw new TargetNotEmptyError(`the target database already holds ${table.name}; copy only into an empty one`);
}
