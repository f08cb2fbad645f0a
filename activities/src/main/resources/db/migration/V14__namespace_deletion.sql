-- A deleted namespace stays, Terminating, while the namespace controller deletes everything it holds
-- (upstream's spec.finalizers ["kubernetes"]); its row goes last, with the objects' leftovers, and only
-- then may its name hold anything new. A namespace that held objects without a row gets one when it is
-- deleted.
ALTER TABLE namespaces ADD COLUMN deletion_timestamp TIMESTAMPTZ;
