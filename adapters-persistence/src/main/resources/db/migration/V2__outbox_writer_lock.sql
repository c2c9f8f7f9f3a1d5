-- One row that every transaction appending events locks first, so events commit in the order of
-- their sequence: a reader polling with after=<sequence> can never skip an event whose transaction
-- committed after a later-numbered one.
CREATE TABLE outbox_writer (id INTEGER PRIMARY KEY);
INSERT INTO outbox_writer (id) VALUES (1);
