-- The provider's name of the operation that the saved intent (pending_action) started, so a reconcile pass
-- polls that one operation instead of listing every operation of the location (Cluster.Progress.operation).
-- NULL while unknown: no call accepted yet, or a crash between the call and saving its answer.
-- Numbered with a gap (V25) so migrations added meanwhile on other branches keep their numbers.
ALTER TABLE clusters ADD COLUMN pending_operation VARCHAR(512);
