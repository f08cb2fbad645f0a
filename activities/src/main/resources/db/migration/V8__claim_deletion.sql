-- A claim deleted while a pod uses it stays, with its deletion timestamp, until no pod does
-- (upstream's kubernetes.io/pvc-protection finalizer); then its volume and its row go.
ALTER TABLE persistent_volume_claims ADD COLUMN deletion_timestamp TIMESTAMPTZ;
