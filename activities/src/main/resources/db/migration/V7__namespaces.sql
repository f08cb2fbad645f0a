-- Namespaces that were created or labelled through the API (kubectl create/label namespace). A
-- namespace without a row still exists implicitly, with no labels: every valid name is one.
CREATE TABLE namespaces (
  name              TEXT PRIMARY KEY,
  uid               TEXT NOT NULL,
  object            TEXT NOT NULL,               -- the v1 Namespace as JSON (metadata: labels, annotations)
  created_at        TIMESTAMPTZ NOT NULL,
  resource_version  BIGINT NOT NULL
);
