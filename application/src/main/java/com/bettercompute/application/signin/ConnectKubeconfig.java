package com.bettercompute.application.signin;

import com.bettercompute.application.access.Caller;
import com.bettercompute.application.cluster.ClusterLookup;
import com.bettercompute.application.cluster.Kubeconfig;
import com.bettercompute.application.market.MarketCallers;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.cluster.Cluster;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The sign-in kubeconfig of the spec's "Connecting": by org token ({@code connect} on the cluster, the name
 * resolved inside the token's organization) or, on the public onboarding route, by a name exactly one
 * cluster carries. It names the cluster's server and CA and the plugin that signs the person in, never a
 * secret.
 */
public final class ConnectKubeconfig {
    /** The plugin's command, as {@code setup.sh} installs it. */
    public static final String PLUGIN = "kubectl-nc";
    /** The route a name several clusters carry is to be asked on, with the org token. */
    public static final String TOKEN_ROUTE = "/api/k8s/cluster/kubeconfig";

    private final MarketCallers callers;
    private final SignInClusters clusters;
    private final Supplier<String> platformUrl;

    public ConnectKubeconfig(MarketCallers callers, SignInClusters clusters, Supplier<String> platformUrl) {
        this.callers = callers;
        this.clusters = clusters;
        this.platformUrl = platformUrl;
    }

    /** The kubeconfig of the organization's cluster of that name; another organization's never answers. */
    public Kubeconfig byToken(Caller caller, String org, String name) {
        return write(callers.cluster(caller, org, name, Action.CONNECT));
    }

    /**
     * The kubeconfig of the one live cluster that carries the name. No cluster: {@code NOT_FOUND}, worded the
     * same whether it never existed or was deleted; several: {@code CONFLICT} {@code ambiguous-cluster}, with
     * the token route to ask instead.
     */
    public Kubeconfig byName(String name) {
        List<Cluster> named = clusters.named(name);
        if (named.isEmpty()) {
            throw new DomainException(ErrorCode.NOT_FOUND, "No cluster " + name + ".", Map.of("field", "cluster"));
        }
        if (named.size() > 1) {
            throw new DomainException(ErrorCode.CONFLICT, "More than one cluster is named " + name
                    + "; ask with your org token on " + TOKEN_ROUTE + ".",
                    Map.of("reason", "ambiguous-cluster", "use", TOKEN_ROUTE + "?cluster=" + name));
        }
        return write(named.get(0));
    }

    private Kubeconfig write(Cluster c) {
        String audience = clusters.audience(c).orElse(null);
        if (ClusterLookup.reach(c) != ClusterLookup.Reach.CONNECTABLE || audience == null) {
            throw ClusterLookup.notConnectable(c, "The cluster is not ready to connect to yet; it is " + c.state().wire() + ".");
        }
        String server = platformUrl.get();
        return Kubeconfig.withPlugin(c.name(), "https://" + c.endpoint(), c.progress().caCertificate(), PLUGIN,
                List.of("token", "--server", server, "--client", audience),
                "Install the sign-in plugin: curl -fsSL " + server + "/setup.sh | sh -s -- you@example.com " + c.name());
    }
}
