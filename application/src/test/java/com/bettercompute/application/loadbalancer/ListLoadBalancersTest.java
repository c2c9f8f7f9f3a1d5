package com.bettercompute.application.loadbalancer;

import com.bettercompute.application.fakes.InMemoryLoadBalancerRepository;
import com.bettercompute.application.market.MarketWorld;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.loadbalancer.LoadBalancer;
import com.bettercompute.domain.loadbalancer.LoadBalancerService;
import com.bettercompute.domain.loadbalancer.LoadBalancerState;
import com.bettercompute.domain.loadbalancer.Refusal;
import com.bettercompute.domain.loadbalancer.RefusalReason;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Who holds which address: the operator's list over every tenant, and a cluster's own for those who may read it. */
class ListLoadBalancersTest {
    final MarketWorld w = new MarketWorld();
    final InMemoryLoadBalancerRepository rows = new InMemoryLoadBalancerRepository(w.ports.store());
    final ListLoadBalancers list = new ListLoadBalancers(rows, w.ports.clusters(), w.authorizer);

    @BeforeEach
    void rows() {
        w.ports.transactions().inTransaction(() -> {
            rows.insert(row(MarketWorld.ACME_TRAIN, "acme", "us-central1", "serve", "uid-1").serving("127.0.10.1", w.ports.clock().instant()));
            rows.insert(row(MarketWorld.GLOBEX_TRAIN, "globex", "us-central1", "web", "uid-2").serving("127.0.10.2", w.ports.clock().instant()));
            rows.insert(row(MarketWorld.ACME_EU, "acme", "europe-west4", "eu", "uid-3").pending(
                    new Refusal(RefusalReason.REGION_NOT_ENABLED, "not enabled"), w.ports.clock().instant()));
            return null;
        });
    }

    LoadBalancer row(String cluster, String tenant, String region, String name, String uid) {
        LoadBalancerService s = new LoadBalancerService("default", name, uid, true, null, List.of(), true, false, 0,
                false, true, null);
        return LoadBalancer.first(cluster, tenant, s, "platform-prod", region, LoadBalancerState.RESERVING, null,
                w.ports.clock().instant());
    }

    @Test
    void anOperatorSeesEveryTenantsAddressesWithTheirClustersNames() {
        List<ListLoadBalancers.Held> all = list.forOperator(w.caller(MarketWorld.OPS), null, null);

        assertThat(all).extracting(h -> h.lb().tenantId() + " " + h.clusterName() + " " + h.lb().namespace() + "/"
                + h.lb().service() + " " + h.lb().region() + " " + h.lb().address() + " " + h.lb().state())
                .containsExactlyInAnyOrder("acme train default/serve us-central1 127.0.10.1 SERVING",
                        "globex train default/web us-central1 127.0.10.2 SERVING",
                        "acme eu default/eu europe-west4 null PENDING");
    }

    @Test
    void anOperatorNarrowsByTenantAndRegion() {
        assertThat(list.forOperator(w.caller(MarketWorld.OPS), "acme", null)).extracting(h -> h.lb().service())
                .containsExactlyInAnyOrder("serve", "eu");
        assertThat(list.forOperator(w.caller(MarketWorld.OPS), "acme", "us-central1")).extracting(h -> h.lb().service())
                .containsExactly("serve");
        assertThat(list.forOperator(w.caller(MarketWorld.OPS), null, "mars-north1")).isEmpty();
    }

    @Test
    void aTenantsAdminIsNotAnOperator() {
        assertThatThrownBy(() -> list.forOperator(w.caller(MarketWorld.ALICE), "acme", null))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED));
    }

    @Test
    void aClustersOwnAreReadByWhoeverMayReadTheCluster() {
        var train = w.ports.clusters().find(MarketWorld.ACME_TRAIN).orElseThrow();

        assertThat(list.ofCluster(w.caller(MarketWorld.DAVE), train)).extracting(h -> h.lb().address())
                .containsExactly("127.0.10.1");
        assertThatThrownBy(() -> list.ofCluster(w.caller(MarketWorld.CAROL), train))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED));
    }
}
