package com.bettercompute.adapters.http;

import com.bettercompute.application.admission.AdmitWorkload;
import com.bettercompute.application.admission.MutateWorkload;
import com.bettercompute.application.admission.Mutations;
import com.bettercompute.application.admission.Verdict;
import com.bettercompute.application.admission.Workload;
import com.bettercompute.application.port.AdmissionEndpoints;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.input.Input;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLContext;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The admission webhooks a tenant cluster's API server calls (the spec's "Launch admission", and the class of
 * LoadBalancer Services), on a
 * port of their own and over HTTPS only, with the platform's own serving certificate:
 * {@code POST /admission/<cluster id>/<path token>/validate} and {@code …/mutate}, each taking and answering an
 * {@code admission.k8s.io/v1} AdmissionReview. The path token tells which cluster's webhook configuration
 * called (a wrong one is a 404, as for a path that does not exist); a body that is not a review is a 400
 * naming the field, never a 500. No path is ever logged: it carries the token.
 */
public final class AdmissionServer {
    private static final Logger LOG = LoggerFactory.getLogger(AdmissionServer.class);
    public static final String VALIDATE = "validate";
    public static final String MUTATE = "mutate";
    static final String PREFIX = "/admission/";

    private final Javalin app;
    /** Made when the server starts, on the host and port {@link #start} was given. */
    private volatile ServerConnector connector;
    private volatile String host;
    private volatile int port;

    public AdmissionServer(AdmitWorkload admit, MutateWorkload mutate, AdmissionEndpoints endpoints, SSLContext tls) {
        this(tls, config -> {
            config.routes.post(PREFIX + "{cluster}/{token}/" + VALIDATE, ctx -> {
                String cluster = caller(ctx, endpoints);
                AdmissionReviews.Review review = AdmissionReviews.read(ctx.bodyAsBytes());
                ctx.contentType("application/json").result(AdmissionReviews.answer(review.uid(), validate(admit, cluster, review), null));
            });
            config.routes.post(PREFIX + "{cluster}/{token}/" + MUTATE, ctx -> {
                caller(ctx, endpoints);
                AdmissionReviews.Review review = AdmissionReviews.read(ctx.bodyAsBytes());
                byte[] patch = null;
                if (review.subject() == AdmissionReviews.Subject.WORKLOAD && review.object() != null) {
                    Workload workload = workload(review);
                    Mutations mutations = mutate.mutations(workload);
                    patch = AdmissionReviews.patch(workload.kind(), review.object(), mutations);
                } else if (review.subject() == AdmissionReviews.Subject.SERVICE) {
                    // a class-less LoadBalancer Service becomes the platform's, so GKE's own controller never acts on it
                    patch = AdmissionReviews.serviceClass(review);
                }
                ctx.contentType("application/json").result(AdmissionReviews.answer(review.uid(), Verdict.allow(), patch));
            });
        });
    }

    /**
     * The floor of the admission benchmark: the same HTTPS connector and Javalin, one route {@code POST /bare}
     * that reads the body and answers a fixed allowing review.
     */
    public static AdmissionServer bare(SSLContext tls) {
        byte[] allowed = AdmissionReviews.answer("bare", Verdict.allow(), null);
        return new AdmissionServer(tls, config -> config.routes.post("/bare", ctx -> {
            ctx.bodyAsBytes();
            ctx.contentType("application/json").result(allowed);
        }));
    }

    private AdmissionServer(SSLContext tls, Consumer<JavalinConfig> routes) {
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.http.maxRequestSize = ApiServer.MAX_BODY_BYTES * 3;
            // the one connector: TLS only, no plain HTTP port beside it
            config.jetty.addConnector((server, http) -> {
                SslContextFactory.Server ssl = new SslContextFactory.Server();
                ssl.setSslContext(tls);
                ServerConnector c = new ServerConnector(server, ssl, new HttpConnectionFactory(http));
                c.setHost(host);
                c.setPort(port);
                connector = c;
                return c;
            });
            routes.accept(config);
            config.routes.exception(DomainException.class, (e, ctx) -> Responses.json(ctx,
                    e.code() == ErrorCode.INTERNAL ? 500 : ErrorMapper.status(e.code()), ErrorMapper.body(e)));
            config.routes.exception(HttpResponseException.class, (e, ctx) -> Responses.json(ctx, e.getStatus() == 404 ? 404 : 400,
                    ErrorMapper.body(e.getStatus() == 404 ? ErrorCode.NOT_FOUND : ErrorCode.INVALID_INPUT,
                            e.getStatus() == 404 ? "No such webhook." : "The review could not be read.", Map.of())));
            config.routes.exception(Exception.class, (e, ctx) -> {
                LOG.error("internal error answering an admission review", e);
                Responses.json(ctx, 500, ErrorMapper.body(ErrorCode.INTERNAL, "An unexpected error occurred; it has been logged.", Map.of()));
            });
            config.routes.error(404, ctx -> {
                if (ctx.result() == null || ctx.result().isEmpty()) {
                    Responses.json(ctx, 404, ErrorMapper.body(ErrorCode.NOT_FOUND, "No such webhook.", Map.of()));
                }
            });
        });
    }

    /** The cluster a call is for, when its path token is that cluster's; else a 404 that says nothing more. */
    private static String caller(Context ctx, AdmissionEndpoints endpoints) {
        String cluster = ctx.pathParam("cluster");
        if (!endpoints.accepts(cluster, ctx.pathParam("token"))) {
            throw new DomainException(ErrorCode.NOT_FOUND, "No such webhook.", Map.of());
        }
        return cluster;
    }

    private static Verdict validate(AdmitWorkload admit, String cluster, AdmissionReviews.Review review) {
        AdmissionReviews.Subject subject = review.subject();
        if (subject == AdmissionReviews.Subject.KUEUE || subject == AdmissionReviews.Subject.CONFIG_MAP) {
            return admit.guard(AdmissionReviews.platformObjectChange(review));
        }
        if (subject == AdmissionReviews.Subject.WORKLOAD) {
            return admit.admit(cluster, workload(review));
        }
        return Verdict.allow();
    }

    private static Workload workload(AdmissionReviews.Review review) {
        try {
            return AdmissionReviews.workload(review);
        } catch (ArithmeticException e) {
            throw Input.invalid("request.object", "asks for more pods or GPUs than can be counted");
        }
    }

    /** Starts on {@code host} and {@code port} (0: any free port) and returns the port. */
    public int start(String host, int port) {
        this.host = host;
        this.port = port;
        app.start();
        return connector.getLocalPort();
    }

    public void stop() {
        app.stop();
    }
}
