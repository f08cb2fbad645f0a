-- A set deleted with propagationPolicy Background is gone from the API at once (GET answers 404,
-- watchers see DELETED) while its controller still removes its pods, as upstream's garbage
-- collector does after the set is gone. Its row stays until then, so that nothing is lost if the
-- service dies half way, and its name stays taken (a create answers 409 AlreadyExists).
ALTER TABLE statefulsets ADD COLUMN deleted_in_background BOOLEAN NOT NULL DEFAULT FALSE;

-- As V4's, with the hidden set: its hiding is its DELETED event, and nothing after it is logged.
CREATE OR REPLACE FUNCTION watch_record() RETURNS trigger AS $$
DECLARE
  changed JSONB;
  version BIGINT;
  kind    TEXT;
  hiding  BOOLEAN := FALSE;
BEGIN
  -- Nested: other tables have no such column, and AND does not promise to stop early.
  IF TG_TABLE_NAME = 'statefulsets' THEN
    IF TG_OP <> 'INSERT' THEN
      IF OLD.deleted_in_background THEN
        RETURN NULL;
      END IF;
    END IF;
    IF TG_OP = 'UPDATE' THEN
      hiding := NEW.deleted_in_background;
    END IF;
  END IF;
  IF TG_OP = 'DELETE' THEN
    changed := to_jsonb(OLD);
    version := nextval('resource_version_seq');
    kind := 'DELETED';
  ELSIF TG_OP = 'UPDATE' AND NEW.resource_version = OLD.resource_version THEN
    RETURN NULL;
  ELSE
    changed := to_jsonb(NEW);
    version := NEW.resource_version;
    kind := CASE WHEN TG_OP = 'INSERT' THEN 'ADDED' WHEN hiding THEN 'DELETED' ELSE 'MODIFIED' END;
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
