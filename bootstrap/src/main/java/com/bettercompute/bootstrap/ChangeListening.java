package com.bettercompute.bootstrap;

import com.bettercompute.adapters.persistence.PostgresChangeListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * Keeps a {@link PostgresChangeListener} listening on a thread of its own: after a failure (the database
 * restarting, a network cut) it starts again after {@link #PAUSE}. While it is not listening the signal it
 * moves is not trusted and its readers go to the database, so an outage costs speed, never a stale answer.
 */
final class ChangeListening implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChangeListening.class);
    static final Duration PAUSE = Duration.ofSeconds(1);

    private final PostgresChangeListener listener;
    private final Thread thread;
    private volatile boolean stopped;

    private ChangeListening(PostgresChangeListener listener, String name) {
        this.listener = listener;
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
    }

    static ChangeListening start(PostgresChangeListener listener, String name) {
        ChangeListening listening = new ChangeListening(listener, name);
        listening.thread.start();
        return listening;
    }

    private void run() {
        boolean failing = false;
        while (!stopped) {
            try {
                listener.listen();
            } catch (Exception e) {
                if (stopped) {
                    return;
                }
                if (!failing) {
                    LOG.warn("{}: not listening ({}); its readers go to the database until it listens again",
                            thread.getName(), e.getMessage());
                }
                failing = true;
            }
            try {
                Thread.sleep(PAUSE.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void close() {
        stopped = true;
        listener.stop();
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
