// GET /pets/{petId}: one pet. Deprecation headers and the sunset are applied in http/, from the contract.

import { apiError } from '../contract/errorBody.js';
import type { Handler } from './handler.js';

export const getPetById: Handler<'getPetById'> = async ({ path: { petId }, pathText }, { store }) => {
  const pet = await store.findPet(petId);
  return pet ? { status: 200, body: pet } : apiError('pet_not_found', `No pet ${pathText.petId}`);
};
