-- Asynchronous membership hooks (completionDeadlineSeconds): a hook that answered "accepted" is
-- waited on until its member's completion is reported through the API or its deadline passes. The
-- row makes the wait survive a crash: the hook's next attempt (same operation, workflow_id) finds it
-- and waits on, or takes the completion reported meanwhile, without running the hook again. A later
-- operation's run of the hook replaces the row.
CREATE TABLE member_hook_waits (
  namespace     TEXT NOT NULL,
  set_name      TEXT NOT NULL,
  pod_name      TEXT NOT NULL,
  hook          TEXT NOT NULL,
  workflow_id   TEXT NOT NULL,          -- the operation whose hook accepted
  accepted_at   TIMESTAMPTZ NOT NULL,
  deadline      TIMESTAMPTZ NOT NULL,
  completed_at  TIMESTAMPTZ,
  succeeded     BOOLEAN,
  message       TEXT,
  PRIMARY KEY (namespace, set_name, pod_name, hook)
);
