-- The trace of the request that queued a change (W3C traceparent; null when tracing is off), so that
-- the signal sent from the outbox after the commit joins that request's trace.
ALTER TABLE controller_outbox ADD COLUMN traceparent TEXT;
