// Pets: read by the deprecated pet operation, added only by the operator.
import type { PetRepository } from '../backend.js';
import type { Pet } from '../store.js';
import type { Connection } from './connection.js';

export class Pets implements PetRepository {
  readonly #connection: Connection;
  readonly #statements;

  constructor(connection: Connection) {
    const { db } = connection;
    this.#connection = connection;
    this.#statements = {
      byId: db.prepare<[number], Pet>(`SELECT id, name FROM pets WHERE id = ?`),
      insert: db.prepare<[string, string]>(`INSERT INTO pets (name, created_at) VALUES (?, ?)`),
    };
  }

  find(petId: number): Pet | undefined {
    return this.#statements.byId.get(petId);
  }

  add(name: string): Pet {
    const { lastInsertRowid } = this.#connection.immediate(() =>
      this.#statements.insert.run(name, this.#connection.now()),
    );
    return { id: Number(lastInsertRowid), name };
  }
}
