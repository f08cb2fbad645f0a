-- The core/v1 objects manifests and charts carry beside their sets: ConfigMaps, Secrets,
-- ServiceAccounts and Services, kept as the RBAC objects are (V6): the object whole as JSON, uid,
-- creation time and resourceVersion as columns, watched through the watch_log triggers (V4). A
-- Secret's object column holds it sealed (AES-GCM), so neither the table nor the watch log has it
-- in clear.
DO $$
DECLARE
  t TEXT;
BEGIN
  FOREACH t IN ARRAY ARRAY['config_maps', 'secrets', 'service_accounts', 'services'] LOOP
    EXECUTE format('CREATE TABLE %1$s (
                      namespace        TEXT NOT NULL,
                      name             TEXT NOT NULL,
                      uid              TEXT NOT NULL,
                      created_at       TIMESTAMPTZ NOT NULL,
                      object           TEXT NOT NULL,
                      resource_version BIGINT NOT NULL DEFAULT 0,
                      PRIMARY KEY (namespace, name))', t);
    EXECUTE format('CREATE TRIGGER %1$s_serialize BEFORE INSERT OR UPDATE OR DELETE ON %1$s
                    FOR EACH STATEMENT EXECUTE FUNCTION watch_serialize()', t);
    EXECUTE format('CREATE TRIGGER %1$s_version BEFORE INSERT OR UPDATE ON %1$s
                    FOR EACH ROW EXECUTE FUNCTION watch_version()', t);
    EXECUTE format('CREATE TRIGGER %1$s_record AFTER INSERT OR UPDATE OR DELETE ON %1$s
                    FOR EACH ROW EXECUTE FUNCTION watch_record()', t);
  END LOOP;
END $$;
