-- Every stored object gets its resourceVersion from one sequence, as etcd revisions do.
CREATE SEQUENCE resource_version_seq;

CREATE TABLE statefulsets (
  id                 TEXT PRIMARY KEY,          -- <namespace>/<name>
  namespace          TEXT NOT NULL,
  name               TEXT NOT NULL,
  uid                TEXT NOT NULL,
  resource_version   BIGINT NOT NULL,
  generation         BIGINT NOT NULL,
  created_at         TIMESTAMPTZ NOT NULL,
  deletion_timestamp TIMESTAMPTZ,
  object             TEXT NOT NULL,             -- apiVersion, kind, metadata, spec (JSON)
  status             TEXT,                      -- status (JSON), written by the controller
  active_operation   TEXT                       -- workflow id of the set's latest operation
);
CREATE INDEX statefulsets_namespace ON statefulsets (namespace, name);

CREATE TABLE controller_revisions (
  id               TEXT PRIMARY KEY,            -- <namespace>/<name>
  namespace        TEXT NOT NULL,
  name             TEXT NOT NULL,
  set_name         TEXT NOT NULL,
  uid              TEXT NOT NULL,
  revision         BIGINT NOT NULL,
  template         TEXT NOT NULL,               -- the pod template (JSON), immutable
  created_at       TIMESTAMPTZ NOT NULL,
  resource_version BIGINT NOT NULL
);
CREATE INDEX controller_revisions_set ON controller_revisions (namespace, set_name);

CREATE TABLE pods (
  id                 TEXT PRIMARY KEY,          -- <namespace>/<name>
  namespace          TEXT NOT NULL,
  name               TEXT NOT NULL,
  set_name           TEXT NOT NULL,
  ordinal            INT NOT NULL,
  uid                TEXT NOT NULL,
  revision           TEXT NOT NULL,
  driver             TEXT NOT NULL,
  object             TEXT NOT NULL,             -- apiVersion, kind, metadata, spec (JSON)
  phase              TEXT NOT NULL,
  ready              BOOLEAN NOT NULL,
  ready_since        TIMESTAMPTZ,
  started_at         TIMESTAMPTZ,
  deletion_timestamp TIMESTAMPTZ,
  created_at         TIMESTAMPTZ NOT NULL,
  resource_version   BIGINT NOT NULL,
  message            TEXT
);
CREATE INDEX pods_set ON pods (namespace, set_name);

CREATE TABLE persistent_volume_claims (
  id               TEXT PRIMARY KEY,            -- <namespace>/<name>
  namespace        TEXT NOT NULL,
  name             TEXT NOT NULL,
  set_name         TEXT NOT NULL,
  ordinal          INT NOT NULL,
  uid              TEXT NOT NULL,
  object           TEXT NOT NULL,
  created_at       TIMESTAMPTZ NOT NULL,
  resource_version BIGINT NOT NULL
);
CREATE INDEX pvcs_set ON persistent_volume_claims (namespace, set_name);

CREATE TABLE events (
  id               BIGSERIAL PRIMARY KEY,
  namespace        TEXT NOT NULL,
  name             TEXT NOT NULL,
  uid              TEXT NOT NULL,
  involved_kind    TEXT NOT NULL,
  involved_name    TEXT NOT NULL,
  involved_uid     TEXT,
  reason           TEXT NOT NULL,
  message          TEXT NOT NULL,
  type             TEXT NOT NULL,
  event_time       TIMESTAMPTZ NOT NULL,
  resource_version BIGINT NOT NULL
);
CREATE INDEX events_namespace ON events (namespace, id);
