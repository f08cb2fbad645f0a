-- The members of sets with membership hooks (ordinal.io/member-hooks): an ordinal joins when its
-- preCreate hook succeeded or its pod was created, and leaves when its preDelete hook succeeded.
CREATE TABLE set_members (
  namespace  TEXT NOT NULL,
  set_name   TEXT NOT NULL,
  ordinal    INT NOT NULL,
  joined_at  TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (namespace, set_name, ordinal)
);
