-- The watch log: every change of an API object, in resourceVersion order, for ?watch=true.
-- Triggers write it, so no store can forget to, and a change and its log entry commit together.
CREATE TABLE watch_log (
  resource_version BIGINT PRIMARY KEY,
  resource         TEXT NOT NULL,               -- table name: statefulsets, pods, ...
  namespace        TEXT NOT NULL,
  name             TEXT NOT NULL,
  type             TEXT NOT NULL,               -- ADDED, MODIFIED or DELETED
  row              JSONB NOT NULL,              -- the row after the change (before it, for DELETED)
  logged_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX watch_log_logged_at ON watch_log (logged_at);

-- Entries at or below this resourceVersion were dropped: a watch from there answers 410 Gone.
CREATE TABLE watch_compaction (
  id               INT PRIMARY KEY CHECK (id = 1),
  resource_version BIGINT NOT NULL
);
INSERT INTO watch_compaction
  SELECT 1, CASE WHEN is_called THEN last_value ELSE 0 END FROM resource_version_seq;

-- One writer at a time, from a transaction's first write of an API object to its commit. Resource
-- versions are handed out under this lock, so they commit in order: a reader that sees version N
-- has seen every committed version below N, and a watcher resuming from N misses nothing. Taken
-- per statement, before any row is locked, so it cannot deadlock with row locks.
CREATE FUNCTION watch_serialize() RETURNS trigger AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(7305620);
  RETURN NULL;
END $$ LANGUAGE plpgsql;

-- A new resourceVersion for each real change (a write that changes nothing, or only the set's
-- bookkeeping column active_operation, keeps the old one), handed out under the lock above.
CREATE FUNCTION watch_version() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND (to_jsonb(NEW) - 'resource_version' - 'active_operation')
                        = (to_jsonb(OLD) - 'resource_version' - 'active_operation') THEN
    NEW.resource_version := OLD.resource_version;
    RETURN NEW;
  END IF;
  NEW.resource_version := nextval('resource_version_seq');
  RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE FUNCTION watch_record() RETURNS trigger AS $$
DECLARE
  changed JSONB;
  version BIGINT;
  kind    TEXT;
BEGIN
  IF TG_OP = 'DELETE' THEN
    changed := to_jsonb(OLD);
    version := nextval('resource_version_seq');
    kind := 'DELETED';
  ELSIF TG_OP = 'UPDATE' AND NEW.resource_version = OLD.resource_version THEN
    RETURN NULL;
  ELSE
    changed := to_jsonb(NEW);
    version := NEW.resource_version;
    kind := CASE TG_OP WHEN 'INSERT' THEN 'ADDED' ELSE 'MODIFIED' END;
  END IF;
  IF TG_TABLE_NAME = 'controller_revisions' THEN
    -- A revision's ownerReference names its set's uid.
    changed := changed || jsonb_build_object('set_uid', (SELECT uid FROM statefulsets s
        WHERE s.namespace = changed->>'namespace' AND s.name = changed->>'set_name'));
  END IF;
  INSERT INTO watch_log (resource_version, resource, namespace, name, type, row)
    VALUES (version, TG_TABLE_NAME, changed->>'namespace', changed->>'name', kind, changed);
  PERFORM pg_notify('watch_log', '');
  RETURN NULL;
END $$ LANGUAGE plpgsql;

DO $$
DECLARE
  t TEXT;
BEGIN
  FOREACH t IN ARRAY ARRAY['statefulsets', 'controller_revisions', 'pods', 'persistent_volume_claims', 'events'] LOOP
    EXECUTE format('CREATE TRIGGER %1$s_serialize BEFORE INSERT OR UPDATE OR DELETE ON %1$s
                    FOR EACH STATEMENT EXECUTE FUNCTION watch_serialize()', t);
    EXECUTE format('CREATE TRIGGER %1$s_version BEFORE INSERT OR UPDATE ON %1$s
                    FOR EACH ROW EXECUTE FUNCTION watch_version()', t);
    EXECUTE format('CREATE TRIGGER %1$s_record AFTER INSERT OR UPDATE OR DELETE ON %1$s
                    FOR EACH ROW EXECUTE FUNCTION watch_record()', t);
  END LOOP;
END $$;
