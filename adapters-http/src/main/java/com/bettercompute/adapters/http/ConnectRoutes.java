package com.bettercompute.adapters.http;

import com.bettercompute.application.access.Caller;
import com.bettercompute.application.cluster.Kubeconfig;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * How a person connects (the spec's "Connecting"): the sign-in kubeconfig by org token and, on the public
 * onboarding route, by a name exactly one cluster carries (rate limited per client address); the sign-in
 * plugin {@code kubectl-nc}; and {@code setup.sh}, which installs the plugin and merges the context.
 */
final class ConnectRoutes {
    static final String KUBECONFIG = "/api/k8s/cluster/kubeconfig";
    static final String ONBOARDING = "/api/k8s/onboarding/kubeconfig";
    static final String PLUGIN = "/kubectl-nc";
    static final String SETUP = "/setup.sh";
    /** Where {@code setup.sh} names the server it came from. */
    static final String SERVER_PLACEHOLDER = "@NC_SERVER@";
    static final String YAML = "application/yaml";

    private ConnectRoutes() {}

    static void install(RoutesConfig routes, SignInUseCases s, Authentication authentication) {
        AddressLimits onboarding = new AddressLimits(s.onboardingPerMinute(), s.clock());
        String plugin = resource("kubectl-nc");
        String setup = resource("setup.sh");
        routes.get(KUBECONFIG, ctx -> {
            Caller caller = authentication.caller(ctx);
            QueryString.Values q = QueryString.read(ctx.queryString(), List.of(MarketRoutes.CLUSTER, MarketRoutes.ORG));
            yaml(ctx, s.kubeconfigs().byToken(caller, q.text("org"), q.text("cluster")));
        });
        routes.get(ONBOARDING, ctx -> {
            onboarding.admit(ctx.ip());
            QueryString.Values q = QueryString.read(ctx.queryString(), List.of(MarketRoutes.CLUSTER));
            yaml(ctx, s.kubeconfigs().byName(q.text("cluster")));
        });
        routes.get(PLUGIN, ctx -> ctx.contentType("text/x-shellscript; charset=utf-8").result(plugin));
        routes.get(SETUP, ctx -> ctx.contentType("text/x-shellscript; charset=utf-8")
                .result(setup.replace(SERVER_PLACEHOLDER, s.issuer().get())));
    }

    private static void yaml(Context ctx, Kubeconfig kubeconfig) {
        ctx.header("Cache-Control", "no-store");
        ctx.contentType(YAML).result(KubeconfigYaml.write(kubeconfig));
    }

    static String resource(String name) {
        try (InputStream in = ConnectRoutes.class.getResourceAsStream("/signin/" + name)) {
            if (in == null) {
                throw new IllegalStateException("the resource /signin/" + name + " is missing from the build");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
