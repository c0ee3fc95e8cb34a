// PostgreSQL migration 13: a key's scopes.
// Shipped: never edit it; a change is a new migration.
export const keyScopes = `
  -- 13: a key's scopes (store/vocabulary.ts): NULL for every scope there is and will be, as every key made
  -- before has; else its scopes separated by spaces, as OAuth writes a scope (RFC 6749 §3.3), and '' for
  -- none. They never change once the key is made, so no statement that checks a key in a write needs to
  -- read them: the server checked them before the write, on what it learned of the key.
  ALTER TABLE api_keys ADD COLUMN scopes text;
`;
