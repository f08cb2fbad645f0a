-- The ClusterIPs Services hold (V15 keeps Services whole as JSON): one row per address, written by
-- triggers from the Service's spec.clusterIP in the Service's own statement, so two Services can
-- never commit with one address and a deleted Service's address is free at once.
CREATE TABLE service_cluster_ips (
  ip        TEXT PRIMARY KEY,
  namespace TEXT NOT NULL,
  name      TEXT NOT NULL
);

CREATE FUNCTION service_cluster_ip() RETURNS trigger AS $$
DECLARE
  ip TEXT;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    DELETE FROM service_cluster_ips WHERE namespace = OLD.namespace AND name = OLD.name;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    ip := NEW.object::jsonb #>> '{spec,clusterIP}';
    IF ip IS NOT NULL AND ip <> '' AND ip <> 'None' THEN
      INSERT INTO service_cluster_ips (ip, namespace, name) VALUES (ip, NEW.namespace, NEW.name);
    END IF;
  END IF;
  RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER services_cluster_ip AFTER INSERT OR UPDATE OR DELETE ON services
  FOR EACH ROW EXECUTE FUNCTION service_cluster_ip();
