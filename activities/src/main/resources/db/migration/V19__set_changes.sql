-- A step of a set's workflow reads only the pods and claims that changed since its last reading
-- (SetChangeReader): by resourceVersion within the set, and the deletions from the watch log.
-- The new indexes begin with the old ones' columns and replace them.
CREATE INDEX pods_set_changes ON pods (namespace, set_name, resource_version);
DROP INDEX pods_set;
CREATE INDEX pvcs_set_changes ON persistent_volume_claims (namespace, set_name, resource_version);
DROP INDEX pvcs_set;
CREATE INDEX watch_log_deletions ON watch_log (namespace, resource_version) WHERE type = 'DELETED';
