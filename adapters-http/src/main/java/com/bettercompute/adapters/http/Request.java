package com.bettercompute.adapters.http;

/**
 * A request body as Jackson binds it: a record of the method's fields, which checks them against the
 * method's input table and gives its use case a typed command.
 *
 * @param <C> the command (or query) of the use case
 */
interface Request<C> {
    /** The command; {@code INVALID_INPUT} naming every bad field. */
    C command(Fields in);
}
