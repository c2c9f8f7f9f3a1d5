-- The path of an account's own provider credentials (a key file kept on the server, never its content).
ALTER TABLE accounts ADD COLUMN credentials_file VARCHAR;
