-- Namespaces are watched as every other kind (kubectl waits on a Terminating one with a watch, and
-- clients' informers list and watch them): their resourceVersions come from the shared sequence, and
-- each change is logged. Rows get a version of that sequence first, so that no namespace's version
-- is one a watcher of the log has passed long ago.
UPDATE namespaces SET resource_version = nextval('resource_version_seq');

-- As V10's, but a row without a namespace column (a namespace: cluster scoped) is logged under ''.
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
    VALUES (version, TG_TABLE_NAME, COALESCE(changed->>'namespace', ''), changed->>'name', kind, changed);
  PERFORM pg_notify('watch_log', '');
  RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER namespaces_serialize BEFORE INSERT OR UPDATE OR DELETE ON namespaces
  FOR EACH STATEMENT EXECUTE FUNCTION watch_serialize();
CREATE TRIGGER namespaces_version BEFORE INSERT OR UPDATE ON namespaces
  FOR EACH ROW EXECUTE FUNCTION watch_version();
CREATE TRIGGER namespaces_record AFTER INSERT OR UPDATE OR DELETE ON namespaces
  FOR EACH ROW EXECUTE FUNCTION watch_record();
