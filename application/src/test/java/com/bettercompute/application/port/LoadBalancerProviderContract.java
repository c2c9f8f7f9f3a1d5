package com.bettercompute.application.port;

import com.bettercompute.domain.loadbalancer.HealthCheck;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every {@link LoadBalancerProvider} must do; run against the in-memory fake and the Compute Engine adapter on
 * the GKE simulator. {@link #provider()} is fresh for each test, with an empty project {@link #PROJECT}.
 */
public abstract class LoadBalancerProviderContract {
    protected static final String PROJECT = "lb-contract";
    protected static final String REGION = "us-central1";
    private static final HealthCheck KUBE_PROXY = new HealthCheck(HealthCheck.KUBE_PROXY_PORT, HealthCheck.PATH);

    protected abstract LoadBalancerProvider provider();

    /** An instance of the project, as a target pool names it. */
    protected static String instance(String name) {
        return "projects/" + PROJECT + "/zones/us-central1-a/instances/" + name;
    }

    private static LoadBalancerProvider.At at(String name) {
        return new LoadBalancerProvider.At(PROJECT, REGION, name, "bc-lbg-contractcontractcontract");
    }

    @Test
    void reserving_again_adopts_the_same_address_and_another_name_gets_another() {
        LoadBalancerProvider p = provider();
        String first = p.reserveAddress(at("bc-lb-aaaaaaaaaaaaaaaaaaaaaaaa"), "first");

        assertThat(first).matches("\\d+\\.\\d+\\.\\d+\\.\\d+");
        assertThat(p.reserveAddress(at("bc-lb-aaaaaaaaaaaaaaaaaaaaaaaa"), "after a lost answer")).isEqualTo(first);
        assertThat(p.reserveAddress(at("bc-lb-bbbbbbbbbbbbbbbbbbbbbbbb"), "second")).isNotEqualTo(first);
        assertThat(p.observe(at("bc-lb-aaaaaaaaaaaaaaaaaaaaaaaa"))).hasValueSatisfying(o -> {
            assertThat(o.address()).isEqualTo(first);
            assertThat(o.forwarding()).isNull();
        });
    }

    @Test
    void forwarding_is_made_changed_in_place_and_ensured_again_without_change() {
        LoadBalancerProvider p = provider();
        LoadBalancerProvider.At at = at("bc-lb-cccccccccccccccccccccccc");
        String ip = p.reserveAddress(at, "forwarding");
        LoadBalancerProvider.Forwarding two = new LoadBalancerProvider.Forwarding(List.of(80, 443),
                List.of(instance("node-a"), instance("node-b")), KUBE_PROXY);

        p.ensureForwarding(at, ip, two);
        assertThat(p.observe(at).orElseThrow().forwarding()).isEqualTo(two);

        LoadBalancerProvider.Forwarding churned = new LoadBalancerProvider.Forwarding(List.of(80, 443),
                List.of(instance("node-b"), instance("node-c")), new HealthCheck(31234, HealthCheck.PATH));
        p.ensureForwarding(at, ip, churned);
        p.ensureForwarding(at, ip, churned);
        assertThat(p.observe(at).orElseThrow().forwarding()).isEqualTo(churned);
        assertThat(p.observe(at).orElseThrow().address()).isEqualTo(ip);

        LoadBalancerProvider.Forwarding onePort = new LoadBalancerProvider.Forwarding(List.of(8443), List.of(), churned.healthCheck());
        p.ensureForwarding(at, ip, onePort);
        assertThat(p.observe(at).orElseThrow().forwarding()).isEqualTo(onePort);
    }

    @Test
    void release_takes_everything_down_and_is_a_success_when_done_already() {
        LoadBalancerProvider p = provider();
        LoadBalancerProvider.At at = at("bc-lb-dddddddddddddddddddddddd");
        String ip = p.reserveAddress(at, "release");
        p.ensureForwarding(at, ip, new LoadBalancerProvider.Forwarding(List.of(80), List.of(instance("node-a")), KUBE_PROXY));

        p.release(at, List.of("us-central1-a"));
        p.release(at, List.of("us-central1-a"));

        assertThat(p.observe(at)).isEmpty();
        p.release(at("bc-lb-eeeeeeeeeeeeeeeeeeeeeeee"), List.of("us-central1-a"));
    }

    @Test
    void two_load_balancers_of_a_cluster_share_its_instances_and_releasing_one_leaves_the_other_as_it_was() {
        LoadBalancerProvider p = provider();
        LoadBalancerProvider.At first = at("bc-lb-gggggggggggggggggggggggg");
        LoadBalancerProvider.At second = at("bc-lb-hhhhhhhhhhhhhhhhhhhhhhhh");
        LoadBalancerProvider.Forwarding f = new LoadBalancerProvider.Forwarding(List.of(80),
                List.of(instance("node-a"), "projects/" + PROJECT + "/zones/us-central1-b/instances/node-b"), KUBE_PROXY);
        p.ensureForwarding(first, p.reserveAddress(first, "first"), f);
        p.ensureForwarding(second, p.reserveAddress(second, "second"), f);

        p.release(first, List.of("us-central1-a", "us-central1-b"));

        assertThat(p.observe(first)).isEmpty();
        assertThat(p.observe(second).orElseThrow().forwarding()).isEqualTo(f);
        p.release(second, List.of("us-central1-a", "us-central1-b"));
        assertThat(p.observe(second)).isEmpty();
    }

    @Test
    void a_released_name_reserved_again_works() {
        LoadBalancerProvider p = provider();
        LoadBalancerProvider.At at = at("bc-lb-ffffffffffffffffffffffff");
        p.reserveAddress(at, "once");
        p.release(at, List.of("us-central1-a"));

        assertThat(p.reserveAddress(at, "twice")).matches("\\d+\\.\\d+\\.\\d+\\.\\d+");
    }
}
