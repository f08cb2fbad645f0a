-- EndpointSlices (discovery.k8s.io/v1), as the endpoint slice controller writes them from the
-- Services and pods of a namespace: kept whole as JSON as the core objects are (V15), so that each
-- has a uid, creation time and resourceVersion of its own and is watched through the watch_log
-- triggers (V4).
CREATE TABLE endpoint_slices (
  namespace        TEXT NOT NULL,
  name             TEXT NOT NULL,
  uid              TEXT NOT NULL,
  created_at       TIMESTAMPTZ NOT NULL,
  object           TEXT NOT NULL,
  resource_version BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (namespace, name)
);
CREATE TRIGGER endpoint_slices_serialize BEFORE INSERT OR UPDATE OR DELETE ON endpoint_slices
  FOR EACH STATEMENT EXECUTE FUNCTION watch_serialize();
CREATE TRIGGER endpoint_slices_version BEFORE INSERT OR UPDATE ON endpoint_slices
  FOR EACH ROW EXECUTE FUNCTION watch_version();
CREATE TRIGGER endpoint_slices_record AFTER INSERT OR UPDATE OR DELETE ON endpoint_slices
  FOR EACH ROW EXECUTE FUNCTION watch_record();
