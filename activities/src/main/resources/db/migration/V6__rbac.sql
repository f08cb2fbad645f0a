-- RBAC objects (rbac.authorization.k8s.io/v1): Roles and RoleBindings per namespace, ClusterRoles and
-- ClusterRoleBindings cluster-wide (namespace ''). The object is kept whole as JSON (its metadata too);
-- uid, creation time and resourceVersion are columns, the latter handed out by the watch_log triggers
-- (V4), so these objects have one version sequence with every other and can be watched.
DO $$
DECLARE
  t TEXT;
BEGIN
  FOREACH t IN ARRAY ARRAY['roles', 'role_bindings', 'cluster_roles', 'cluster_role_bindings'] LOOP
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
