// The schema migrations a store applies as it opens, told to whoever opened it (the server's log, the
// CLI's notes) once they are committed: each migration of an existing schema, or a new schema as a whole.

/**
 * The schema went from version `from` to version `to`: one migration of an existing schema (`to` is
 * `from + 1`), or, with `from` 0, a new schema built by every migration up to `to`.
 */
export interface SchemaMigration {
  from: number;
  to: number;
}

export type MigrationListener = (migration: SchemaMigration) => void;

/** Tells `listener` what bringing the schema from version `from` to version `to` did, in order. */
export function reportMigrations(from: number, to: number, listener: MigrationListener | undefined): void {
  if (from === 0 && to > 0) listener?.({ from, to });
  else for (let version = from; version < to; version++) listener?.({ from: version, to: version + 1 });
}
