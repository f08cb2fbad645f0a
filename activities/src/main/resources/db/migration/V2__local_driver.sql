-- Filled by drivers that run real pods: the pod's address and its containers' statuses (JSON).
ALTER TABLE pods ADD COLUMN pod_ip TEXT;
ALTER TABLE pods ADD COLUMN container_statuses TEXT;

-- Stable network identity: one loopback address per pod identity, kept while its set exists.
CREATE TABLE pod_addresses (
  id        TEXT PRIMARY KEY,                   -- <namespace>/<pod name>
  namespace TEXT NOT NULL,
  set_name  TEXT NOT NULL,
  pod_name  TEXT NOT NULL,
  ip        TEXT NOT NULL UNIQUE
);
CREATE INDEX pod_addresses_namespace ON pod_addresses (namespace);
