-- When a base load block node was reported ready in its cluster (null while it has not joined or has left):
-- only a ready block node seats requests smaller than one node.
ALTER TABLE market_nodes ADD COLUMN block_ready_at TIMESTAMP WITH TIME ZONE;
