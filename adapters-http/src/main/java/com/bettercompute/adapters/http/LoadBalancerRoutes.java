package com.bettercompute.adapters.http;

import com.bettercompute.adapters.http.QueryString.Param;
import com.bettercompute.application.loadbalancer.ListLoadBalancers;
import com.bettercompute.domain.loadbalancer.LoadBalancer;

import java.util.List;

/**
 * Who holds which address, for an operator: {@code GET /api/operator/load-balancers?tenant=&region=} lists every
 * load balancer the platform keeps (snake_case, as the operator's market routes); anyone else is
 * {@code ACCESS_DENIED}.
 */
final class LoadBalancerRoutes {
    static final String PATH = "/api/operator/load-balancers";
    static final List<Param> QUERY = List.of(
            Param.optional("tenant", Wire.TENANT_ID, "only this tenant's load balancers"),
            Param.optional("region", Wire.LOCATION, "only the load balancers of this region"));

    private LoadBalancerRoutes() {}

    static void install(Router router, ListLoadBalancers list) {
        router.get(PATH, "Every Service's load balancer: tenant, cluster, namespace/name, region, address and state",
                QUERY, LoadBalancerList.class, (caller, q) -> new LoadBalancerList(list.forOperator(caller, q.text("tenant"), q.text("region"))
                        .stream().map(LoadBalancerItem::of).toList()));
    }

    /**
     * One load balancer: {@code address} null until reserved; {@code state} is {@code pending}, {@code reserving},
     * {@code serving} or {@code releasing}; {@code reason} and {@code message} say why it is pending, else null;
     * {@code cluster} (the cluster's name) null once its cluster is gone.
     */
    record LoadBalancerItem(String tenant, String cluster_id, @MayBeNull String cluster, String namespace, String service, String region,
                            @MayBeNull String address, List<Integer> ports, String state, @MayBeNull String reason,
                            @MayBeNull String message, String provider_name,
                            String created_at, String updated_at) {
        static LoadBalancerItem of(ListLoadBalancers.Held held) {
            LoadBalancer lb = held.lb();
            return new LoadBalancerItem(lb.tenantId(), lb.clusterId(), held.clusterName(), lb.namespace(), lb.service(), lb.region(),
                    lb.address(), lb.ports(), lb.state().name().toLowerCase(java.util.Locale.ROOT),
                    lb.refusal() == null ? null : lb.refusal().wire(), lb.refusalText(), lb.providerName(),
                    Views.time(lb.createdAt()), Views.time(lb.updatedAt()));
        }
    }

    record LoadBalancerList(List<LoadBalancerItem> items) {}
}
