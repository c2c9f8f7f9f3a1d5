package com.bettercompute.adapters.http;

import com.bettercompute.domain.ErrorCode;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.server.Handler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * What keeps one client from starving the others: each principal's concurrency and rate
 * ({@link PrincipalLimits}), checked right after authentication and before the body is read, answered
 * 429 with {@code Retry-After}; and a total deadline on every request body ({@link BodyDeadline}),
 * answered 408 with the connection closed. A body the client cut short is its own fault: 400 (when the
 * connection is still there to answer), one line in the debug log, never an ERROR.
 */
public final class RequestLimits {
    private static final Logger log = LoggerFactory.getLogger(RequestLimits.class);

    /** Each principal's requests in flight and requests a second, and how long any body may take to arrive. */
    public record Settings(int concurrentPerPrincipal, int requestsPerSecondPerPrincipal, Duration bodyTimeout) {
        public static final int DEFAULT_CONCURRENT = 16;
        public static final int DEFAULT_PER_SECOND = 300;
        public static final int DEFAULT_BODY_TIMEOUT_SECONDS = 10;

        public Settings {
            if (concurrentPerPrincipal < 1 || requestsPerSecondPerPrincipal < 1 || bodyTimeout.isNegative() || bodyTimeout.isZero()) {
                throw new IllegalArgumentException("request limits must be positive");
            }
        }

        public static Settings defaults() {
            return new Settings(DEFAULT_CONCURRENT, DEFAULT_PER_SECOND, Duration.ofSeconds(DEFAULT_BODY_TIMEOUT_SECONDS));
        }
    }

    /** The context attribute holding the release of the request's place. */
    private static final String RELEASE = "bc.requestLimits.release";

    private final Settings settings;
    private final PrincipalLimits principals;

    public RequestLimits(Settings settings, Clock clock) {
        this.settings = settings;
        this.principals = new PrincipalLimits(settings.concurrentPerPrincipal(), settings.requestsPerSecondPerPrincipal(), clock);
    }

    /** Puts the body deadline in front of the API and the answers to refused and cut-short requests. */
    void install(JavalinConfig config) {
        config.jetty.modifyServer(server -> {
            BodyDeadline deadline = new BodyDeadline(settings.bodyTimeout());
            if (!(server.getHandler() instanceof Handler.Wrapper outer)) {
                server.setHandler(deadline);
                return;
            }
            Handler.Wrapper inner = outer;
            while (inner.getHandler() instanceof Handler.Wrapper next) {
                inner = next;
            }
            inner.setHandler(deadline);
        });
        config.routes.exception(PrincipalLimits.Exceeded.class, (e, ctx) -> {
            ctx.header("Retry-After", Long.toString(e.retryAfterSeconds()));
            write(ctx, 429, ErrorCode.QUOTA_EXCEEDED, e.getMessage(),
                    Map.of("reason", e.reason(), "retryAfterSeconds", e.retryAfterSeconds()));
        });
        config.routes.exception(IOException.class, (e, ctx) -> {
            ctx.header("Connection", "close");
            if (timedOut(e)) {
                log.debug("request body timed out: {} {}", ctx.method(), ctx.path());
                HttpRefusal.REQUEST_TIMEOUT.write(ctx, "The request body did not arrive within "
                        + settings.bodyTimeout().toSeconds() + " seconds.", Map.of("reason", "body-timeout"));
            } else {
                log.debug("request body cut short by the client: {} {}: {}", ctx.method(), ctx.path(), e.toString());
                write(ctx, 400, ErrorCode.INVALID_INPUT, "The request body ended before it was complete.",
                        Map.of("reason", "body-incomplete"));
            }
        });
    }

    /**
     * Takes one of the principal's places for this request, released when the request is over; or
     * {@code QUOTA_EXCEEDED} (429, {@code Retry-After}) when the principal has used its share.
     */
    void admit(Context ctx, String principalId) {
        Runnable release = principals.admit(principalId);
        ctx.attribute(RELEASE, release);
        BodyDeadline.whenFinished(ServletContextRequest.getServletContextRequest(ctx.req()), release);
    }

    /**
     * Gives the request's place back now rather than when the request is over: for a stream that stays
     * open for hours, once it is open (its own number is bounded elsewhere). Idempotent.
     */
    static void releaseEarly(Context ctx) {
        Runnable release = ctx.attribute(RELEASE);
        if (release != null) {
            release.run();
        }
    }

    private static boolean timedOut(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof BodyDeadline.Expired || c instanceof TimeoutException) {
                return true;
            }
        }
        return false;
    }

    private static void write(Context ctx, int status, ErrorCode code, String message, Map<String, Object> details) {
        ctx.status(status).contentType("application/json").result(Json.write(ErrorMapper.body(code, message, details)));
    }
}
