package com.bettercompute.adapters.http;

import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Bounds the time a request's body may take to arrive, in total (an idle timeout alone lets a client
 * that sends a byte a second hold a thread for as long as it likes). Once the deadline has passed, a
 * read that finds no byte waiting fails with {@link Expired}, and a read already waiting is woken to
 * fail the same way, so the thread that reads is free at once; the API answers 408 and closes the
 * connection. Also the one place a request's end is seen, whatever happened to it: work registered
 * with {@link #whenFinished} runs once the response is complete or the request failed.
 */
final class BodyDeadline extends Handler.Wrapper {
    private final Duration limit;

    BodyDeadline(Duration limit) {
        this.limit = limit;
    }

    /**
     * The failure a read gets once the body's deadline has passed. An {@link IOException} of its own, not a
     * {@code TimeoutException}: Javalin answers those itself, without the API's error body.
     */
    static final class Expired extends IOException {
        Expired(Duration limit) {
            super("the request body did not arrive within " + limit.toSeconds() + " seconds");
        }
    }

    Duration limit() {
        return limit;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        Timed timed = new Timed(request, limit);
        Scheduler.Task task = request.getComponents().getScheduler().schedule(timed::expire, limit.toMillis(), TimeUnit.MILLISECONDS);
        Runnable finish = () -> {
            task.cancel();
            timed.finish();
        };
        boolean handled;
        try {
            handled = super.handle(timed, response, Callback.from(callback, finish));
        } catch (Throwable t) {
            finish.run();
            throw t;
        }
        if (!handled) {
            finish.run();
        }
        return handled;
    }

    /** Runs {@code work} once the request the core request belongs to is over; at once when it is not one of ours. */
    static void whenFinished(Request request, Runnable work) {
        Timed timed = Request.as(request, Timed.class);
        if (timed == null) {
            work.run();
            return;
        }
        timed.whenFinished(work);
    }

    private static final class Timed extends Request.Wrapper {
        private final Duration limit;
        private final AtomicReference<Runnable> waiting = new AtomicReference<>();
        private final List<Runnable> onFinish = new CopyOnWriteArrayList<>();
        private final AtomicBoolean finished = new AtomicBoolean();
        private volatile boolean expired;
        private volatile boolean complete;

        Timed(Request request, Duration limit) {
            super(request);
            this.limit = limit;
        }

        @Override
        public Content.Chunk read() {
            Content.Chunk chunk = super.read();
            if (chunk == null && expired && !complete) {
                return Content.Chunk.from(new Expired(limit), true);
            }
            if (chunk != null && chunk.isLast()) {
                complete = true;
            }
            return chunk;
        }

        @Override
        public void demand(Runnable demand) {
            waiting.set(demand);
            super.demand(() -> {
                if (waiting.compareAndSet(demand, null)) {
                    demand.run();
                }
            });
            if (expired) {
                // not on this thread: the reader may not expect its demand to run inside demand()
                getComponents().getScheduler().schedule(this::wake, 0, TimeUnit.MILLISECONDS);
            }
        }

        void expire() {
            if (!complete) {
                expired = true;
                wake();
            }
        }

        private void wake() {
            Runnable demand = waiting.getAndSet(null);
            if (demand != null) {
                demand.run();
            }
        }

        void whenFinished(Runnable work) {
            onFinish.add(work);
            if (finished.get() && onFinish.remove(work)) {
                work.run();
            }
        }

        void finish() {
            if (finished.compareAndSet(false, true)) {
                for (Runnable work : onFinish) {
                    if (onFinish.remove(work)) {
                        work.run();
                    }
                }
            }
        }
    }
}
