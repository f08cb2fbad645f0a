-- Rollout history: why a revision was made, when it last became the update revision, and whether
-- it is an older revision brought back (a rollback).
ALTER TABLE controller_revisions ADD COLUMN change_cause TEXT;
ALTER TABLE controller_revisions ADD COLUMN updated_at TIMESTAMPTZ;
ALTER TABLE controller_revisions ADD COLUMN rolled_back BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE controller_revisions SET updated_at = created_at;
ALTER TABLE controller_revisions ALTER COLUMN updated_at SET NOT NULL;
