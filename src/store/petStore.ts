// The seam's part for pets: the deprecated getPetById reads one; only the operator adds them.
import type { components } from '../../generated/openapi.js';

export type Pet = components['schemas']['Pet'];

export interface PetStore {
  findPet(petId: number): Promise<Pet | undefined>;
}

export interface PetAdmin {
  addPet(name: string): Promise<Pet>;
}
