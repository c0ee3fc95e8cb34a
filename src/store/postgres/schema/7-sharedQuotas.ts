// PostgreSQL migration 7: the request quotas, shared by every server on the database.
// Shipped: never edit it; a change is a new migration.
export const sharedQuotas = `
  -- 7: each window's count per quota and subject (http/sharedQuota.ts), added to only when a process takes
  -- a block of it, in one function: the window's row is locked, the units the limit leaves are granted, and
  -- the process is noted among those that share the quotas. Its lock waits are bounded by its budget, as
  -- every write's (migration 5).
  CREATE TABLE quota_windows (
    quota text NOT NULL,
    subject text NOT NULL,
    window_start bigint NOT NULL,
    used bigint NOT NULL CHECK (used >= 0),
    PRIMARY KEY (quota, subject, window_start)
  );
  CREATE INDEX quota_windows_by_start ON quota_windows (window_start);
  CREATE TABLE quota_processes (
    process_id text PRIMARY KEY,
    seen_at bigint NOT NULL
  );

  CREATE FUNCTION lease_quota(
    p_quota text, p_subject text, p_window_start bigint, p_window_ms bigint, p_want bigint, p_spent bigint,
    p_limit bigint, p_process_id text, budget_ms integer
  ) RETURNS TABLE (granted bigint, used bigint, processes bigint)
  LANGUAGE plpgsql AS $$
  #variable_conflict use_column
  DECLARE
    v_before bigint;
    v_granted bigint;
  BEGIN
    PERFORM bound_lock_waits(budget_ms);
    INSERT INTO quota_windows AS w (quota, subject, window_start, used)
      VALUES (p_quota, p_subject, p_window_start, 0)
      ON CONFLICT (quota, subject, window_start) DO NOTHING;
    SELECT w.used INTO v_before FROM quota_windows w
      WHERE w.quota = p_quota AND w.subject = p_subject AND w.window_start = p_window_start FOR UPDATE;
    v_granted := least(p_want, greatest(0, p_limit - v_before - p_spent));
    UPDATE quota_windows w SET used = v_before + p_spent + v_granted
      WHERE w.quota = p_quota AND w.subject = p_subject AND w.window_start = p_window_start;
    INSERT INTO quota_processes AS q (process_id, seen_at) VALUES (p_process_id, p_window_start)
      ON CONFLICT (process_id) DO UPDATE SET seen_at = greatest(q.seen_at, excluded.seen_at);
    PERFORM end_within_budget(budget_ms);
    RETURN QUERY SELECT v_granted, v_before + p_spent + v_granted,
      (SELECT count(*) FROM quota_processes q WHERE q.seen_at >= p_window_start - p_window_ms);
  END $$;
`;
