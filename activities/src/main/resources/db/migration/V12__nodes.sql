-- The instances of Ordinal that share this database, by node name. The local and sim drivers run a
-- pod on the node that started it; a set of theirs is placed on one node (annotation ordinal.io/node)
-- and its pod activities go to that node's task queue. A set may name only a node listed here.
CREATE TABLE nodes (
  name       TEXT PRIMARY KEY,
  address    TEXT,
  started_at TIMESTAMPTZ NOT NULL
);
