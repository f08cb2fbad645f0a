-- Bearer tokens of the API. A token is "<id>.<secret>"; only the SHA-256 of the secret is kept, so a
-- copy of the database lets no one in. Revoked tokens stay, for the record, with revoked_at set.
CREATE TABLE api_tokens (
  id           TEXT PRIMARY KEY,
  secret_hash  TEXT NOT NULL,
  username     TEXT NOT NULL,
  uid          TEXT NOT NULL,
  groups_json  TEXT NOT NULL,                   -- JSON array of group names
  description  TEXT NOT NULL DEFAULT '',
  created_at   TIMESTAMPTZ NOT NULL,
  expires_at   TIMESTAMPTZ,
  revoked_at   TIMESTAMPTZ
);
