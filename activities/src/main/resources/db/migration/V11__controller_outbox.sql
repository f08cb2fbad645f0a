-- A transactional outbox: each API write that changes a set's spec adds a row here in its own
-- transaction, and the service signals the set's controller workflow from it, in order, after the
-- commit. The write does not wait for Temporal, and a crash between the commit and the signal loses
-- nothing: the row is still here when the service comes back.
CREATE TABLE controller_outbox (
  id           BIGSERIAL PRIMARY KEY,
  namespace    TEXT NOT NULL,
  name         TEXT NOT NULL,
  generation   BIGINT NOT NULL,
  requested_by TEXT,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE FUNCTION controller_outbox_notify() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('controller_outbox', '');
  RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER controller_outbox_notify AFTER INSERT ON controller_outbox
  FOR EACH STATEMENT EXECUTE FUNCTION controller_outbox_notify();
