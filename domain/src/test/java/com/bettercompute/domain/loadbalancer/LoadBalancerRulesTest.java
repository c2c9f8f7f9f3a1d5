package com.bettercompute.domain.loadbalancer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The load balancer rules, one table per policy. */
class LoadBalancerRulesTest {
    private static final Instant T0 = Instant.parse("2026-05-01T10:00:00Z");
    private static final List<Worker> TWO_READY = List.of(
            new Worker("gpu-1", "projects/p/zones/z/instances/gpu-1", true, false, false),
            new Worker("cpu-1", "projects/p/zones/z/instances/cpu-1", true, false, false));

    /** Ports written {@code 80/TCP/30080}, space separated; a NodePort of 0 is none. */
    private static List<ServicePort> ports(String text) {
        List<ServicePort> out = new ArrayList<>();
        if (text == null || text.isBlank()) {
            return out;
        }
        for (String p : text.trim().split("\\s+")) {
            String[] f = p.split("/");
            out.add(new ServicePort("", f[1], Integer.parseInt(f[0]), Integer.parseInt(f[2])));
        }
        return out;
    }

    private static LoadBalancerService service(String ports, boolean allocate, boolean local, int hcPort) {
        return new LoadBalancerService("default", "serve", "uid-1", true, LoadBalancerClass.PLATFORM, ports(ports), allocate, local,
                hcPort, false, true, null);
    }

    @ParameterizedTest(name = "ports [{0}] allocate {1} local {2} hc {3} -> {4} served [{5}] skipped [{6}]")
    @CsvSource(nullValues = "null", value = {
            "443/TCP/30443,                 true,  false, 0,     serve,                 443,    ''",
            "443/TCP/30443 80/TCP/30080,    true,  false, 0,     serve,                 80 443, ''",
            "53/UDP/30053 80/TCP/30080,     true,  false, 0,     serve,                 80,     53/UDP",
            "53/UDP/30053 9/SCTP/30009,     true,  false, 0,     unsupported-protocol,  '',     53/UDP 9/SCTP",
            "'',                            true,  false, 0,     unsupported-protocol,  '',     ''",
            "80/TCP/30080,                  false, false, 0,     no-node-port,          '',     ''",
            "80/TCP/0,                      true,  false, 0,     no-node-port,          '',     ''",
            "80/TCP/30080 81/TCP/0,         true,  false, 0,     no-node-port,          '',     ''",
            "80/TCP/30080,                  true,  true,  0,     no-node-port,          '',     ''",
            "80/TCP/30080,                  true,  true,  32000, serve,                 80,     ''"})
    void servingPolicy(String ports, boolean allocate, boolean local, int hcPort, String outcome, String served, String skipped) {
        ServingPolicy.Decision d = ServingPolicy.decide(service(ports, allocate, local, hcPort), TWO_READY);

        if (outcome.equals("serve")) {
            assertThat(d).isInstanceOf(ServingPolicy.Serve.class);
            assertThat(((ServingPolicy.Serve) d).portNumbers()).map(String::valueOf)
                    .containsExactly(served.isEmpty() ? new String[0] : served.split(" "));
        } else {
            assertThat(d).isInstanceOf(ServingPolicy.Refuse.class);
            assertThat(((ServingPolicy.Refuse) d).refusal().reason().wire()).isEqualTo(outcome);
        }
        assertThat(d.skipped()).map(p -> p.port() + "/" + p.protocol())
                .containsExactly(skipped.isEmpty() ? new String[0] : skipped.split(" "));
    }

    @Test
    void a_refusal_message_names_the_skipped_ports() {
        ServingPolicy.Decision d = ServingPolicy.decide(new LoadBalancerService("default", "dns", "u", true, LoadBalancerClass.PLATFORM,
                List.of(new ServicePort("dns", "UDP", 53, 30053)), true, false, 0, false, true, null), TWO_READY);

        assertThat(((ServingPolicy.Refuse) d).refusal().message()).contains("dns (53/UDP)").contains("only TCP");
    }

    @ParameterizedTest(name = "ready {0} notice {1} excluded {2} -> backs {3}")
    @CsvSource({
            "true,  false, false, true",
            "false, false, false, false",   // NotReady: out
            "true,  true,  false, false",   // under reclaim notice: out at notice time, not when it goes
            "true,  false, true,  false",   // excluded or being removed
            "false, true,  true,  false"})
    void backendPolicy(boolean ready, boolean notice, boolean excluded, boolean backs) {
        Worker w = new Worker("n", "projects/p/zones/z/instances/n", ready, notice, excluded);
        List<Worker> workers = List.of(w, new Worker("other", "projects/p/zones/z/instances/other", true, false, false));

        assertThat(ServingPolicy.backends(workers).contains(w.instance())).isEqualTo(backs);
        assertThat(ServingPolicy.backends(workers)).contains("projects/p/zones/z/instances/other").isSorted();
    }

    @Test
    void no_ready_worker_is_a_refusal() {
        ServingPolicy.Decision d = ServingPolicy.decide(service("80/TCP/30080", true, false, 0),
                List.of(new Worker("n", "i", false, false, false), new Worker("m", "j", true, true, false)));

        assertThat(((ServingPolicy.Refuse) d).refusal().reason()).isEqualTo(RefusalReason.NO_READY_WORKERS);
    }

    @ParameterizedTest(name = "local {0} hc {1} -> port {2}")
    @CsvSource({"false, 0, 10256", "false, 31000, 10256", "true, 31000, 31000"})
    void healthCheckPolicy(boolean local, int hcPort, int port) {
        assertThat(HealthCheck.of(service("80/TCP/30080", true, local, hcPort))).isEqualTo(new HealthCheck(port, "/healthz"));
    }

    @ParameterizedTest(name = "enabled {0} cluster {1}/{2} pool {3}/{4} -> {5}")
    @CsvSource({
            "true,  0, 3, 0,  10, ''",
            "true,  2, 3, 9,  10, ''",
            "false, 0, 3, 0,  10, region-not-enabled",
            "true,  3, 3, 0,  10, cluster-cap",
            "true,  0, 0, 0,  10, cluster-cap",        // a cap of 0 allows none
            "true,  3, 3, 10, 10, cluster-cap",        // the cluster's cap is named first
            "true,  1, 3, 10, 10, pool-limit",
            "false, 3, 3, 10, 10, region-not-enabled"})
    void allocationPolicy(boolean enabled, int held, int cap, int poolHeld, int limit, String refusal) {
        var r = AllocationPolicy.check("us-central1", new AllocationPolicy.Room(enabled, cap, held, limit, poolHeld));

        assertThat(r.map(x -> x.reason().wire()).orElse("")).isEqualTo(refusal);
    }

    @ParameterizedTest(name = "{0} -> {1} class {2} -> claims {3}")
    @CsvSource(nullValues = "null", value = {
            "null,         LoadBalancer, null,                              true",    // created as a LoadBalancer
            "ClusterIP,    LoadBalancer, null,                              true",    // its type changed to it
            "NodePort,     LoadBalancer, '',                                true",
            "LoadBalancer, LoadBalancer, null,                              false",   // already one: whoever serves it keeps it
            "null,         LoadBalancer, example.com/metal,                 false",   // another class: left alone
            "null,         LoadBalancer, nationalcompute.com/load-balancer, false",   // ours already
            "null,         ClusterIP,    null,                              false",
            "LoadBalancer, ClusterIP,    null,                              false"})
    void classPolicy(String oldType, String newType, String cls, boolean claims) {
        assertThat(LoadBalancerClass.claims(oldType, newType, cls)).isEqualTo(claims);
    }

    @Test
    void provider_names_are_deterministic_valid_compute_names_and_differ_per_service() {
        String a = LoadBalancer.providerName("kcl_a", "uid-1");

        assertThat(a).isEqualTo(LoadBalancer.providerName("kcl_a", "uid-1"))
                .isNotEqualTo(LoadBalancer.providerName("kcl_a", "uid-2"))
                .isNotEqualTo(LoadBalancer.providerName("kcl_b", "uid-1"))
                .matches("[a-z]([-a-z0-9]{0,61}[a-z0-9])?").hasSize(30).startsWith("bc-lb-");
    }

    // ---------------------------------------------------------------- the steps of a load balancer's life

    private static LoadBalancer row(String state, String address) {
        LoadBalancer r = LoadBalancer.first("kcl_a", "acme", service("80/TCP/30080", true, false, 0), "p", "us-central1",
                LoadBalancerState.RESERVING, null, T0);
        return switch (state) {
            case "none" -> null;
            case "PENDING" -> r.pending(new Refusal(RefusalReason.CLUSTER_CAP, "cap"), T0);
            case "RESERVING" -> r;
            case "SERVING" -> r.serving(address, T0);
            case "PROGRAMMED" -> r.serving(address, T0).programmed(List.of(80), ServingPolicy.backends(TWO_READY),
                    new HealthCheck(10256, "/healthz"), T0);
            case "RELEASING" -> r.serving(address, T0).releasing(T0);
            default -> throw new IllegalArgumentException(state);
        };
    }

    /**
     * The Service written {@code mine|deleting|other-class|cluster-ip|gone|udp-only|local-no-hc}, with
     * {@code +fin} when it carries the finalizer and {@code @IP} when its status shows an address.
     */
    private static LoadBalancerService observed(String text) {
        if (text.equals("gone")) {
            return null;
        }
        List<String> parts = Arrays.asList(text.split("[+@]"));
        boolean fin = text.contains("+fin");
        String ip = text.contains("@") ? text.substring(text.indexOf('@') + 1) : null;
        String kind = parts.get(0);
        String ports = kind.equals("udp-only") ? "53/UDP/30053" : "80/TCP/30080";
        return new LoadBalancerService("default", "serve", "uid-1", !kind.equals("cluster-ip"),
                kind.equals("other-class") ? "example.com/metal" : kind.equals("cluster-ip") ? null : LoadBalancerClass.PLATFORM,
                ports(ports), true, false, 0, kind.equals("deleting"), fin, ip);
    }

    @ParameterizedTest(name = "row {0} service {1} -> {2}")
    @CsvSource({
            // a new Service of ours: finalizer first, then room, then the address, forwarding, status
            "none,       mine,                    AddFinalizer",
            "none,       mine+fin,                Claim",
            "PENDING,    mine+fin,                Claim",
            "RESERVING,  mine+fin,                Reserve",
            "SERVING,    mine+fin,                Program",
            "PROGRAMMED, mine+fin,                PublishStatus",
            "PROGRAMMED, mine+fin@10.0.0.7,       PublishStatus",   // someone else's address in its status
            "PROGRAMMED, mine+fin@203.0.113.5,    Done",
            // refused: pending, told once per reason
            "none,       udp-only+fin,            Refuse",
            "PENDING,    udp-only+fin,            Refuse",          // another reason than the row's
            "PROGRAMMED, udp-only+fin@203.0.113.5, Warn",           // holds its address: kept, and said
            // left alone
            "none,       other-class,             Done",
            "none,       cluster-ip,              Done",
            "none,       gone,                    Done",
            // going: the address before the row, the row before the finalizer
            "PENDING,    deleting+fin,            Forget",
            "RESERVING,  deleting+fin,            BeginRelease",
            "PROGRAMMED, deleting+fin,            BeginRelease",
            "PROGRAMMED, cluster-ip+fin@203.0.113.5, BeginRelease",
            "PROGRAMMED, gone,                    BeginRelease",
            "RELEASING,  gone,                    Release",
            "RELEASING,  mine+fin,                Release",          // a release under way is finished, then served anew
            "none,       deleting+fin,            RemoveFinalizer",
            "none,       cluster-ip+fin@203.0.113.5, ClearStatus",
            "none,       cluster-ip+fin,          RemoveFinalizer"})
    void steps(String row, String service, String step) {
        LoadBalancerService s = observed(service);
        ServingPolicy.Decision d = s != null && s.wanted() ? ServingPolicy.decide(s, TWO_READY) : null;

        assertThat(LoadBalancerSteps.next(row(row, "203.0.113.5"), s, d).getClass().getSimpleName()).isEqualTo(step);
    }

    @Test
    void a_pending_row_refused_for_the_same_reason_is_done() {
        LoadBalancerService s = observed("udp-only+fin");
        ServingPolicy.Refuse d = (ServingPolicy.Refuse) ServingPolicy.decide(s, TWO_READY);
        LoadBalancer pending = row("RESERVING", null).pending(d.refusal(), T0);

        assertThat(LoadBalancerSteps.next(pending, s, d)).isInstanceOf(LoadBalancerSteps.Done.class);
    }
}
