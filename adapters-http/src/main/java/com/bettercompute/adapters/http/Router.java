package com.bettercompute.adapters.http;

import com.bettercompute.application.access.Caller;
import com.bettercompute.adapters.http.QueryString.Param;
import com.bettercompute.adapters.http.Request.Body;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * Installs the API's routes on Javalin and keeps the table of them that the OpenAPI document is written
 * from: each route with the schema its body or query is checked by and the record its answer is written
 * from, so what is enforced is what is published.
 *
 * <p>Adding a route is one call here with its summary, its {@link Body} (or its {@link Param}s) and its
 * answer record: the document, the checks and the problems' words follow.
 */
final class Router {
    /** One served route as the OpenAPI document describes it; {@code streams}: it also answers server-sent events. */
    record Route(String httpMethod, String path, String summary, Body<?> body, List<Param> query, Class<?> answer, boolean streams) {
        Route {
            query = List.copyOf(query);
        }
    }

    /** Serves a GET or DELETE route: the caller and the checked query in, the answer record out. */
    @FunctionalInterface
    interface Query<O> {
        O answer(Caller caller, QueryString.Values query);
    }

    /** Serves a route as server-sent events, once the caller and the query are checked. */
    @FunctionalInterface
    interface Stream {
        void serve(Caller caller, Context ctx) throws Exception;
    }

    /** The check of a route that any authenticated caller may call: the use case decides. */
    private static final Consumer<Caller> ANY_CALLER = caller -> { };

    private final RoutesConfig routes;
    private final Authentication authentication;
    private final List<Route> table = new ArrayList<>();

    Router(RoutesConfig routes, Authentication authentication) {
        this.routes = routes;
        this.authentication = authentication;
    }

    /** {@code POST path}: authenticates, checks and binds the body, hands its command to {@code call}. */
    <C, R extends Request<C>, O> void post(String path, String summary, Body<R> body, Class<O> answer,
                                           BiFunction<Caller, C, ? extends O> call) {
        withBody(HandlerType.POST, path, summary, body, answer, call);
    }

    /** {@code PUT path}, as {@link #post}. */
    <C, R extends Request<C>, O> void put(String path, String summary, Body<R> body, Class<O> answer,
                                          BiFunction<Caller, C, ? extends O> call) {
        withBody(HandlerType.PUT, path, summary, body, answer, call);
    }

    private <C, R extends Request<C>, O> void withBody(HandlerType method, String path, String summary, Body<R> body,
                                                       Class<O> answer, BiFunction<Caller, C, ? extends O> call) {
        table.add(new Route(method.name().toLowerCase(Locale.ROOT), path, summary, body, List.of(), answer, false));
        routes.addHttpHandler(method, path, ctx -> {
            Caller caller = authentication.caller(ctx);
            HttpRefusal.requireJson(ctx);
            QueryString.read(ctx.queryString(), List.of());
            C command = Json.command(ctx.bodyAsBytes(), body);
            O result = call.apply(caller, command);
            OperatorRoutes.accepted(command);
            Responses.json(ctx, 200, result);
        });
    }

    /** {@code GET path} with its query parameters. */
    <O> void get(String path, String summary, List<Param> query, Class<O> answer, Query<? extends O> call) {
        withQuery(HandlerType.GET, path, summary, ANY_CALLER, query, answer, call, null);
    }

    /** {@code DELETE path} with its query parameters, as {@link #get}. */
    <O> void delete(String path, String summary, List<Param> query, Class<O> answer, Query<? extends O> call) {
        withQuery(HandlerType.DELETE, path, summary, ANY_CALLER, query, answer, call, null);
    }

    /**
     * {@code DELETE path} as {@link #delete}, with {@code first} checking the caller before the query is read: a caller
     * who may never call the route learns that alone, whatever the query holds.
     */
    <O> void delete(String path, String summary, Consumer<Caller> first, List<Param> query, Class<O> answer, Query<? extends O> call) {
        withQuery(HandlerType.DELETE, path, summary, first, query, answer, call, null);
    }

    /**
     * {@code GET path} as {@link #get}, answered instead by {@code stream} when the caller accepts
     * {@code text/event-stream} (server-sent events).
     */
    <O> void getOrStream(String path, String summary, List<Param> query, Class<O> answer, Query<? extends O> call, Stream stream) {
        withQuery(HandlerType.GET, path, summary, ANY_CALLER, query, answer, call, stream);
    }

    private <O> void withQuery(HandlerType method, String path, String summary, Consumer<Caller> first, List<Param> query,
                               Class<O> answer, Query<? extends O> call, Stream stream) {
        table.add(new Route(method.name().toLowerCase(Locale.ROOT), path, summary, null, query, answer, stream != null));
        routes.addHttpHandler(method, path, ctx -> {
            Caller caller = authentication.caller(ctx);
            first.accept(caller);
            QueryString.Values values = QueryString.read(ctx.queryString(), query);
            if (stream != null && prefersStream(ctx.header("Accept"))) {
                stream.serve(caller, ctx);
                return;
            }
            Responses.json(ctx, 200, call.answer(caller, values));
        });
    }

    /**
     * Whether the caller prefers server-sent events to JSON, by the quality each has in {@code Accept} and then by
     * their order: a client that takes both as the document lists them ({@code application/json, text/event-stream},
     * as generated clients send) gets the JSON page that ends, not a stream that does not.
     */
    static boolean prefersStream(String accept) {
        if (accept == null) {
            return false;
        }
        org.eclipse.jetty.http.QuotedQualityCSV values =
                new org.eclipse.jetty.http.QuotedQualityCSV(org.eclipse.jetty.http.QuotedQualityCSV.MOST_SPECIFIC_MIME_ORDERING);
        values.addValue(accept);
        for (String value : values) {
            String media = value.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
            if (media.equals(FeedStreams.EVENT_STREAM)) {
                return true;
            }
            if (media.equals("application/json")) {
                return false;
            }
        }
        return false;
    }

    /** A route outside the API's JSON calls (the OpenAPI document itself), listed in no table. */
    void raw(String path, io.javalin.http.Handler handler) {
        routes.get(path, handler);
    }

    List<Route> table() {
        return List.copyOf(table);
    }
}
