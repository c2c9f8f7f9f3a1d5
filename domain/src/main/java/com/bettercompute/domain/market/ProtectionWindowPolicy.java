package com.bettercompute.domain.market;

import java.time.Instant;

/**
 * A running gang inside its protection window keeps its nodes and does not compete, unless the
 * window is void: it is void while the limit sits below the limit the gang held when it started.
 * Raising a limit never resets the window.
 */
public final class ProtectionWindowPolicy {
    private ProtectionWindowPolicy() {
    }

    /**
     * @param protectedUntil the end of the gang's window, null when it holds no grant yet
     * @param startLimit     the limit when the gang started, in micro-dollars per GPU-hour
     */
    public static boolean protects(Instant now, Instant protectedUntil, long limit, long startLimit) {
        return protectedUntil != null && now.isBefore(protectedUntil) && !isVoid(limit, startLimit);
    }

    /** The same on epoch nanoseconds ({@link #epochNanos}); {@code protectedUntil} is {@link Long#MIN_VALUE} when none. */
    public static boolean protects(long nowNanos, long protectedUntilNanos, long limit, long startLimit) {
        return nowNanos < protectedUntilNanos && !isVoid(limit, startLimit);
    }

    /** An instant as epoch nanoseconds, exact until the year 2262. */
    public static long epochNanos(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano());
    }

    /**
     * The window of a gang whose nodes were granted or got ready at different times: it lasts until the
     * latest of its nodes' windows ends, so a notice (which reclaims the whole gang) never starts while one of
     * its nodes is still protected. A node not ready yet ({@code nodeWindow} null) changes nothing.
     */
    public static Instant gangWindow(Instant gangWindow, Instant nodeWindow) {
        if (nodeWindow == null) {
            return gangWindow;
        }
        return gangWindow == null || nodeWindow.isAfter(gangWindow) ? nodeWindow : gangWindow;
    }

    public static boolean isVoid(long limit, long startLimit) {
        return limit < startLimit;
    }
}
