package com.bettercompute.application.port;

/**
 * How a provider operation stands: still running, or done (with its error if it failed).
 *
 * @param done  the provider finished it (successfully or not)
 * @param error why it failed, as the provider says; null if it succeeded, is not done, or no operation was found
 */
public record OperationStatus(boolean done, String error) {
    public static final OperationStatus RUNNING = new OperationStatus(false, null);
    public static final OperationStatus SUCCEEDED = new OperationStatus(true, null);

    public static OperationStatus failed(String error) {
        return new OperationStatus(true, error);
    }
}
