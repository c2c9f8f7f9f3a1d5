package com.bettercompute.adapters.http.console;

import com.bettercompute.adapters.http.ApiBodies;
import com.bettercompute.adapters.http.ApiUseCases;
import com.bettercompute.adapters.http.MarketUseCases;
import com.bettercompute.adapters.http.NodePoolUseCases;
import com.bettercompute.adapters.http.VolumeUseCases;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.access.ConsoleSessions;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Ids;
import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import gg.jte.output.StringOutput;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;

/**
 * The web console under {@value #BASE}, on the API's port and over the API's use cases: a person signs in
 * once with the organization's API token and gets a session ({@link ConsoleSessions}, kept in the database: every
 * replica knows it, a restart keeps it); every page is rendered on
 * the server from precompiled jte templates and works without JavaScript; every form carries the session's
 * CSRF token. Calls made through a session reach the use cases as a {@link Caller} marked {@code viaSession}.
 *
 * <p>A page never shows another organization's data: the use cases answer {@code NOT_FOUND} for it, and the
 * console answers that with its 404 page.
 */
public final class Console {
    public static final String BASE = "/console";
    static final String COOKIE = "bc_console";
    static final String CSRF_FIELD = "_csrf";
    private static final Logger log = LoggerFactory.getLogger(Console.class);
    private static final String CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            + "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

    /** Serves the market feed as server-sent events to a caller (the API's own stream). */
    @FunctionalInterface
    public interface FeedStream {
        void serve(Caller caller, Context ctx) throws Exception;
    }

    /** Notes a request's principal (for the access log) and counts it against its share, as the API's requests are. */
    @FunctionalInterface
    public interface Admission {
        void admit(Context ctx, String principalId);
    }

    final ApiUseCases api;
    final NodePoolUseCases nodePools;
    final MarketUseCases market;
    final ConsoleUseCases console;
    /** The shared volumes (the Storage page, a cluster's volume); null: the site provisions none. */
    final VolumeUseCases volumes;
    final ConsoleSessions sessions;
    private final Clock clock;
    private final TemplateEngine templates = TemplateEngine.createPrecompiled(ContentType.Html);
    private final Map<String, byte[]> assets = Map.of("console.css", asset("console.css"), "console.js", asset("console.js"));

    public Console(ApiUseCases api, NodePoolUseCases nodePools, MarketUseCases market, ConsoleUseCases console, Clock clock) {
        this(api, nodePools, market, console, null, clock);
    }

    /** With {@code volumes}: the Storage page, each cluster's volume on its page and the cluster delete's opt-in. */
    public Console(ApiUseCases api, NodePoolUseCases nodePools, MarketUseCases market, ConsoleUseCases console,
                   VolumeUseCases volumes, Clock clock) {
        this.api = api;
        this.volumes = volumes;
        this.nodePools = nodePools;
        this.market = market;
        this.console = console;
        this.sessions = console.sessions();
        this.clock = clock;
    }

    /** Installs the console's routes. */
    public void install(RoutesConfig routes, FeedStream feed, Admission admission) {
        Pages pages = new Pages(this, routes, admission);
        routes.get(BASE, ctx -> ctx.redirect(BASE + "/clusters", io.javalin.http.HttpStatus.SEE_OTHER));
        routes.get(BASE + "/static/{file}", this::asset);
        new SignIn(this).install(routes);
        new ClusterPages(this).install(pages);
        new MarketPages(this, feed, clock).install(pages);
        new StoragePages(this).install(pages);
    }

    /** Whether a path is the console's: an unmatched one is answered by {@link #notFound}, not by the API's JSON. */
    public static boolean owns(String path) {
        return path.equals(BASE) || path.startsWith(BASE + "/");
    }

    /** The console's 404 page for a path no route matched. */
    public void notFound(Context ctx) {
        problem(ctx, signedOutChrome("Not found"), 404, "Not found", "There is no such page in the console.");
    }

    private void asset(Context ctx) {
        byte[] body = assets.get(ctx.pathParam("file"));
        if (body == null) {
            notFound(ctx);
            return;
        }
        ctx.header("Cache-Control", "public, max-age=300");
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.contentType(ctx.pathParam("file").endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8");
        ctx.result(body);
    }

    String render(String template, Object page) {
        StringOutput out = new StringOutput();
        templates.render(template, page, out);
        return out.toString();
    }

    void html(Context ctx, int status, String template, Object page) {
        headers(ctx);
        ctx.status(status).contentType("text/html; charset=utf-8").result(render(template, page));
    }

    static void headers(Context ctx) {
        ctx.header("Content-Security-Policy", CSP);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Referrer-Policy", "same-origin");
        ctx.header("Cache-Control", "no-store");
    }

    void problem(Context ctx, Model.Chrome chrome, int status, String heading, String message) {
        html(ctx, status, "problem.jte", new Model.ProblemPage(chrome, status, heading, message));
    }

    /** A use case's refusal as the console's page for it; an unexpected error is logged with its request id. */
    void problem(Context ctx, Model.Chrome chrome, Exception e) {
        if (e instanceof DomainException d && d.code() != ErrorCode.INTERNAL) {
            int status = ApiBodies.status(d.code());
            String heading = switch (d.code()) {
                case NOT_FOUND -> "Not found";
                case ACCESS_DENIED -> "Not allowed";
                case QUOTA_EXCEEDED -> "Too many requests";
                default -> "That did not work";
            };
            // NOT_FOUND says the same for a cluster of another organization as for none at all
            String message = d.code() == ErrorCode.NOT_FOUND ? "There is no such page in your organization." : d.getMessage();
            problem(ctx, chrome, status, heading, message);
            return;
        }
        String requestId = ctx.res().getHeader("X-Request-Id");
        log.error("internal error serving console {} {} (request {})", ctx.method(), ctx.path(), requestId, e);
        problem(ctx, chrome, 500, "Something went wrong", "The error has been logged with request id " + requestId + ".");
    }

    static Model.Chrome signedOutChrome(String title) {
        return new Model.Chrome(title, null, null, null, null, null, null, null);
    }

    /** The session a request's cookie names, if it is live. */
    Optional<ConsoleSessions.Session> session(Context ctx) {
        return sessions.find(ctx.cookie(COOKIE));
    }

    /** Does the request come from a page of this server? Refuses a cross-site form post even before a session. */
    static boolean sameOrigin(Context ctx) {
        String origin = ctx.header("Origin");
        if (origin == null || origin.equals("null")) {
            return origin == null;
        }
        String host = ctx.header("Host");
        return host != null && (origin.equals("http://" + host) || origin.equals("https://" + host));
    }

    /** https when the request came over it (directly or, as a proxy says, in front of us). */
    static boolean secure(Context ctx) {
        return "https".equalsIgnoreCase(ctx.scheme()) || "https".equalsIgnoreCase(ctx.header("X-Forwarded-Proto"));
    }

    static String tokenHash(String token) {
        return Ids.sha256Hex(token);
    }

    private static byte[] asset(String name) {
        try (InputStream in = Console.class.getResourceAsStream("/console/" + name)) {
            if (in == null) {
                throw new IllegalStateException("the console's " + name + " is missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
