-- A revision records the set's ordinal.io/member-overrides (canonical JSON) beside its template:
-- both make a pod's template, so both make the revision. NULL: no overrides (upstream's revision).
ALTER TABLE controller_revisions ADD COLUMN member_overrides TEXT;
