package com.bettercompute.adapters.http;

import java.util.Set;

/**
 * A request body as Jackson binds it, once its {@link Body}'s schema has passed it: a record of the
 * method's fields that turns them into its use case's typed command.
 *
 * @param <C> the command (or query) of the use case
 */
interface Request<C> {
    /** The command of the checked body; {@code given} tells a field left out from one sent as {@code null}. */
    C command(Given given);

    /** The top-level fields the body named: with a value, or as an explicit {@code null}. */
    record Given(Set<String> values, Set<String> nulls) {
        boolean value(String field) {
            return values.contains(field);
        }

        boolean explicitNull(String field) {
            return nulls.contains(field);
        }
    }

    /** A route's body: the record it is bound into and the schema that checks it and documents it. */
    record Body<R extends Request<?>>(Class<R> type, Schema.Obj schema) {}
}
