package com.bettercompute.bootstrap.market;

/** A scenario that cannot run: the message names the field and the problem. */
public final class ScenarioException extends RuntimeException {
    public ScenarioException(String message) {
        super(message);
    }

    public ScenarioException(String message, Throwable cause) {
        super(message, cause);
    }
}
