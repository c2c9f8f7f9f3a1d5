package com.bettercompute.adapters.http;

import com.bettercompute.adapters.http.MarketViews.MarketFeedItem;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.port.MarketFeed;
import com.bettercompute.application.market.ReadMarketFeed;
import com.bettercompute.domain.input.Input;
import io.javalin.http.Context;
import io.javalin.http.sse.SseClient;
import io.javalin.http.sse.SseHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

/**
 * The market feed as server-sent events: each entry an event {@code tick} whose {@code id} is its
 * sequence, so a client that reconnects with {@code Last-Event-ID} resumes right after the last one it
 * got. One timer polls the feed for every open stream; a comment keeps an idle stream open.
 *
 * <p>An open stream gives its request's concurrency place back ({@link RequestLimits#releaseEarly}): it
 * costs no request thread while open, and holding a place for hours would starve the principal's ordinary
 * calls. Streams count apart instead, at most {@link #STREAMS_PER_PRINCIPAL} open per principal (429
 * {@code reason: "streams"} beyond).
 */
final class FeedStreams implements AutoCloseable {
    static final String LAST_EVENT_ID = "Last-Event-ID";
    static final String EVENT_STREAM = "text/event-stream";
    private static final Logger log = LoggerFactory.getLogger(FeedStreams.class);
    private static final Pattern SEQUENCE = Pattern.compile("[0-9]{1,18}");
    private static final int KEEP_ALIVE_POLLS = 15;
    static final int STREAMS_PER_PRINCIPAL = 8;

    private final ReadMarketFeed feed;
    private final ScheduledExecutorService timer;
    private final Set<Subscriber> subscribers = ConcurrentHashMap.newKeySet();
    /**
     * Set first by {@link #close}: a stream that opens while the server stops closes itself, so no open stream
     * is left for the server's stop to wait on (either close sees it among the subscribers, or it sees this).
     */
    private volatile boolean closing;
    /** Open streams per principal (absent: none). */
    private final Map<String, Integer> open = new ConcurrentHashMap<>();
    private int polls;

    private static final class Subscriber {
        final SseClient client;
        final String pool;
        long cursor;

        Subscriber(SseClient client, String pool, long cursor) {
            this.client = client;
            this.pool = pool;
            this.cursor = cursor;
        }
    }

    FeedStreams(ReadMarketFeed feed, Duration every) {
        this.feed = feed;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "market-feed-events");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::poll, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Opens a stream from {@code Last-Event-ID} (or {@code after}); a bad cursor or pool is refused before it opens. */
    void serve(Caller caller, Context ctx) {
        QueryString.Values query = QueryString.read(ctx.queryString(), MarketRoutes.FEED_QUERY);
        String pool = query.text("pool");
        long after = query.whole("after", 0);
        String last = ctx.header(LAST_EVENT_ID);
        if (last != null && !last.isBlank()) {
            if (!SEQUENCE.matcher(last.trim()).matches()) {
                Schema.Problems problems = new Schema.Problems("header");
                problems.add(LAST_EVENT_ID, "must be a sequence the feed sent");
                problems.throwIfAny();
            }
            after = Long.parseLong(last.trim());
        }
        ReadMarketFeed.Page first = feed.read(pool, after, ReadMarketFeed.MAX_LIMIT);
        String principal = caller.id();
        take(principal);
        AtomicBoolean closed = new AtomicBoolean();
        Runnable giveBack = () -> {
            if (closed.compareAndSet(false, true)) {
                open.computeIfPresent(principal, (p, n) -> n > 1 ? n - 1 : null);
            }
        };
        try {
            new SseHandler(client -> {
                client.keepAlive();
                Subscriber s = new Subscriber(client, pool, first.next());
                client.onClose(() -> {
                    subscribers.remove(s);
                    giveBack.run();
                });
                // before the first event: a client that got it knows the place is free again
                RequestLimits.releaseEarly(ctx);
                synchronized (s) {
                    send(s, first.items());
                }
                subscribers.add(s);
                if (closing) {
                    subscribers.remove(s);
                    client.close();
                }
            }).handle(ctx);
        } catch (RuntimeException e) {
            giveBack.run();
            throw e;
        }
    }

    /** Counts one more open stream of the principal, or refuses it (429) at {@link #STREAMS_PER_PRINCIPAL}. */
    private void take(String principal) {
        boolean[] taken = {false};
        open.compute(principal, (p, n) -> {
            int count = n == null ? 0 : n;
            if (count >= STREAMS_PER_PRINCIPAL) {
                return n;
            }
            taken[0] = true;
            return count + 1;
        });
        if (!taken[0]) {
            throw new PrincipalLimits.Exceeded("streams", "The caller already has " + STREAMS_PER_PRINCIPAL
                    + " market feed streams open, its limit; close one first.", 1);
        }
    }

    /** Streams of the principal open now. */
    int open(String principal) {
        return open.getOrDefault(principal, 0);
    }

    private void poll() {
        boolean keepAlive = ++polls % KEEP_ALIVE_POLLS == 0;
        for (Subscriber s : subscribers) {
            try {
                synchronized (s) {
                    if (s.client.terminated()) {
                        subscribers.remove(s);
                        continue;
                    }
                    ReadMarketFeed.Page page = feed.read(s.pool, s.cursor, ReadMarketFeed.MAX_LIMIT);
                    send(s, page.items());
                    if (page.items().isEmpty() && keepAlive) {
                        s.client.sendComment("keep-alive");
                    }
                }
            } catch (RuntimeException e) {
                // one broken stream (a gone client, a failed read) never stops the others
                log.warn("market feed stream closed: {}", e.toString());
                subscribers.remove(s);
                s.client.close();
            }
        }
    }

    private static void send(Subscriber s, List<MarketFeed.Entry> items) {
        for (MarketFeed.Entry e : items) {
            s.client.sendEvent("tick", new String(Json.write(MarketFeedItem.of(e)), StandardCharsets.UTF_8),
                    Long.toString(e.sequence()));
            s.cursor = e.sequence();
        }
    }

    @Override
    public void close() {
        closing = true;
        timer.shutdownNow();
        for (Subscriber s : subscribers) {
            s.client.close();
        }
        subscribers.clear();
    }
}
