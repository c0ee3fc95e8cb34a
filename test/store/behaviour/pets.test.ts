// Pets (the deprecated getPetById's), on every backend.
import { describe, expect, it } from 'vitest';
import { onEveryBackend } from '../../support/storeSuite.js';

onEveryBackend('the $kind store', (t) => {
  describe('pets', () => {
    it('adds and finds a pet', async () => {
      const pet = await t.store.pets.addPet('Rex');
      expect(await t.store.pets.findPet(pet.id)).toStrictEqual({ id: pet.id, name: 'Rex' });
      expect(await t.store.pets.findPet(pet.id + 1)).toBeUndefined();
      expect(await t.store.pets.findPet(2 ** 60)).toBeUndefined();
    });
  });
});
