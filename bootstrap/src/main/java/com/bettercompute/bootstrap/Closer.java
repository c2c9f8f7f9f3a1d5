package com.bettercompute.bootstrap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What a server has started, closed in the reverse order of its start: each feature module adds its parts as it
 * starts them, so a part is closed before whatever it was built on, and a start that fails half-way closes exactly
 * what was started. Used by the one thread that starts the server, then by the one that stops it.
 */
final class Closer {
    private static final Logger LOG = LoggerFactory.getLogger(Closer.class);

    /** One started part, named for the stop's log line. */
    private record Part(String name, AutoCloseable part) {
    }

    private final Deque<Part> parts = new ArrayDeque<>();

    /** Adds a part just started, to be closed before every part added earlier; returns it. */
    <T extends AutoCloseable> T add(String name, T part) {
        parts.push(new Part(name, part));
        return part;
    }

    /**
     * Closes every part, the last added first, each once; a part whose close fails is logged and the others are
     * still closed. Returns how long each took, in order: {@code stopped: api 12 ms reconciler 840 ms ...}.
     */
    String close() {
        StringBuilder took = new StringBuilder("stopped:");
        while (!parts.isEmpty()) {
            Part p = parts.pop();
            long start = System.nanoTime();
            try {
                p.part().close();
            } catch (Exception e) {
                LOG.warn("stopping {}: {}", p.name(), e.toString());
            }
            took.append(' ').append(p.name()).append(' ').append((System.nanoTime() - start) / 1_000_000).append(" ms");
        }
        return took.toString();
    }

    /** After a start that failed with {@code failure}: closes what was started, its own failures suppressed in it. */
    void closeAfter(RuntimeException failure) {
        while (!parts.isEmpty()) {
            try {
                parts.pop().part().close();
            } catch (Exception e) {
                failure.addSuppressed(e);
            }
        }
    }
}
