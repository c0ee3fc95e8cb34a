// Pets: read by the deprecated pet operation, added only by the operator.
import type { Pool } from 'pg';
import type { PetRepository } from '../backend.js';
import type { Pet } from '../store.js';

export class Pets implements PetRepository {
  readonly #pool: Pool;
  readonly #now: () => string;

  constructor(pool: Pool, now: () => string) {
    this.#pool = pool;
    this.#now = now;
  }

  async find(petId: number): Promise<Pet | undefined> {
    const { rows } = await this.#pool.query<Pet>(`SELECT id, name FROM pets WHERE id = $1`, [petId]);
    return rows[0];
  }

  async add(name: string): Promise<Pet> {
    const { rows } = await this.#pool.query<Pet>(
      `INSERT INTO pets (name, created_at) VALUES ($1, $2) RETURNING id, name`,
      [name, this.#now()],
    );
    return rows[0] as Pet;
  }
}
