-- Events as upstream's EventCorrelator keeps them (client-go tools/record/events_cache.go): the same
-- event again (object, type, reason and message) counts on the stored one (count, last_time); more
-- than 9 different messages of one object, type and reason within 10 minutes of each other go into
-- one "(combined from similar events)" event (aggregate). Expired by last_time (the API server's
-- --event-ttl, one hour by default, counts from an event's last write too).
ALTER TABLE events ADD COLUMN count INTEGER NOT NULL DEFAULT 1;
ALTER TABLE events ADD COLUMN last_time TIMESTAMPTZ;
UPDATE events SET last_time = event_time;
ALTER TABLE events ALTER COLUMN last_time SET NOT NULL;
ALTER TABLE events ADD COLUMN aggregate BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX events_correlation ON events (namespace, involved_name, reason);
CREATE INDEX events_last_time ON events (last_time);

-- Per object, type and reason: the distinct messages seen (at most 10) since the group's last event
-- came more than 10 minutes after the one before it.
CREATE TABLE event_aggregates (
  key       TEXT PRIMARY KEY,
  messages  TEXT[] NOT NULL,
  last_time TIMESTAMPTZ NOT NULL
);
CREATE INDEX event_aggregates_last_time ON event_aggregates (last_time);
