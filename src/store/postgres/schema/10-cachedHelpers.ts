// PostgreSQL migration 10: the helpers every write calls keep their plans.
// Shipped: never edit it; a change is a new migration.
export const cachedHelpers = `
  -- 10: key_is_active (migration 8) and bound_lock_waits (migration 5) were SQL functions that the
  -- planner does not inline (a subquery; a call by PERFORM), so PostgreSQL parsed and planned their bodies
  -- again at every call: about 110 µs of its CPU for each cancelOrder, of about 510. In PL/pgSQL their
  -- plans are kept by each connection. Same names, arguments, results and snapshots (a STABLE function
  -- reads with its caller's): every caller, of this release or an earlier one, is unchanged.
  CREATE OR REPLACE FUNCTION key_is_active(p_key bytea) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
  BEGIN
    RETURN EXISTS (SELECT 1 FROM api_keys WHERE digest = p_key AND revoked_at IS NULL);
  END $$;

  CREATE OR REPLACE FUNCTION bound_lock_waits(budget_ms integer) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM set_config('lock_timeout', CASE WHEN budget_ms IS NULL THEN '5s' ELSE greatest(budget_ms / 2, 1) || 'ms' END, true);
  END $$;
`;
