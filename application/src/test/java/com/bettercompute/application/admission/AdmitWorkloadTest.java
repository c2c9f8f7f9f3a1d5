package com.bettercompute.application.admission;

import com.bettercompute.application.admission.Workload.Kind;
import com.bettercompute.application.admission.Workload.Operation;
import com.bettercompute.application.admission.Workload.PodTemplate;
import com.bettercompute.application.market.EnrolCluster;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.market.MarketWorld;
import com.bettercompute.domain.market.Market;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The spec's "Launch admission" rules on the market's world: pool us-central1/h100-8x (8 GPUs a node),
 * acme's cluster "train" enrolled with 5000 USD of credits and no limit price of its own.
 */
class AdmitWorkloadTest {
    static final String PLATFORM = "platform@better-compute";
    private final MarketWorld w = new MarketWorld();
    private final AdmitWorkload admit = new AdmitWorkload(w.markets, w.ports.clusters(), Set.of(PLATFORM));

    @BeforeEach
    void enrol() {
        packing(false);
    }

    private void packing(boolean on) {
        w.enrol.enrol(new EnrolCluster.Command(MarketWorld.ACME_TRAIN, 64L, on, null));
    }

    static Workload job(String limitLabel, PodTemplate... templates) {
        Map<String, String> labels = limitLabel == null ? Map.of() : Map.of("nationalcompute.com/limit-price", limitLabel);
        return new Workload(Kind.JOB, Operation.CREATE, "default", "train", labels, false, false, List.of(templates));
    }

    static PodTemplate template(String name, int count, long gpus) {
        return new PodTemplate(name, "/spec/template", count, gpus, null, false);
    }

    static Workload pod(long gpus, boolean controlled) {
        return new Workload(Kind.POD, Operation.CREATE, "default", "p", Map.of(), controlled, false,
                List.of(new PodTemplate("p", "", 1, gpus, null, false)));
    }

    @ParameterizedTest(name = "packing {0}, {1} GPUs per pod: {2}")
    @CsvSource({
            "false, 0,  allowed",
            "false, 8,  allowed",
            "false, 16, allowed",
            "false, 1,  JobSizeTooSmall",
            "false, 4,  JobSizeTooSmall",
            "false, 12, JobSizeTooSmall",
            "true,  1,  allowed",
            "true,  4,  allowed",
            "true,  8,  allowed",
            "true,  24, allowed",
            "true,  12, JobSizeNotNodeAligned",
            "true,  9,  JobSizeNotNodeAligned",
    })
    void every_gpu_pod_of_a_job_a_deployment_or_alone_asks_whole_nodes_unless_packing_seats_it_below_one_node(boolean packing, long gpus, String expected) {
        packing(packing);
        Workload deployment = new Workload(Kind.DEPLOYMENT, Operation.CREATE, "default", "serve", Map.of(), false, false,
                List.of(template("serve", 3, gpus)));
        for (Workload workload : List.of(job(null, template("worker", 2, gpus)), pod(gpus, false), pod(gpus, true), deployment)) {
            Verdict v = admit.admit(MarketWorld.ACME_TRAIN, workload);
            assertEquals(expected, v.allowed() ? "allowed" : v.reason(), workload.kind() + " " + v.message());
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "off, 4 GPUs | false | 4 | JobSizeTooSmall: Job \"train\", pod template \"worker\", requests 4 GPUs per pod, "
                    + "which is not a multiple of 8, the GPUs of one node of us-central1/h100-8x. The market assigns whole "
                    + "nodes and packing onto the base load block is off for this cluster: request 8 GPUs per pod, as "
                    + "several whole-node pods for a multi-node job.",
            "off, 12 GPUs | false | 12 | JobSizeTooSmall: Job \"train\", pod template \"worker\", requests 12 GPUs per pod, "
                    + "which is not a multiple of 8, the GPUs of one node of us-central1/h100-8x. The market assigns whole "
                    + "nodes: request 16 GPUs per pod (or 8), as several whole-node pods for a multi-node job.",
            "on, 12 GPUs | true | 12 | JobSizeNotNodeAligned: Job \"train\", pod template \"worker\", requests 12 GPUs "
                    + "per pod: more than one node of us-central1/h100-8x (8 GPUs) but not a whole number of nodes. Request "
                    + "8 or 16 GPUs per pod, or fewer than 8 to run on your base load block.",
    })
    void a_size_refusal_names_the_rule_the_numbers_and_what_to_do(String name, boolean packing, long gpus, String message) {
        packing(packing);
        Verdict v = admit.admit(MarketWorld.ACME_TRAIN, job(null, template("launcher", 1, 0), template("worker", 2, gpus)));
        assertEquals(message, v.message());
        assertEquals(Verdict.REFUSED, v.code());
    }

    @ParameterizedTest(name = "limit {0} × {1} pods × 8 GPUs against 5000 USD: {2}")
    @CsvSource({
            "40,   8, BalanceTooLow",
            "39,   8, allowed",
            "0,   64, allowed",
            "2.50, 8, allowed",
            "'',   8, InvalidLimitPrice",
            "abc,  8, InvalidLimitPrice",
    })
    void the_balance_covers_two_hours_of_the_job_at_its_limit_price(String limit, int pods, String expected) {
        Verdict v = admit.admit(MarketWorld.ACME_TRAIN, job(limit, template("worker", pods, 8)));
        assertEquals(expected, v.allowed() ? "allowed" : v.reason(), v.message());
    }

    @Test
    void a_balance_refusal_names_the_required_and_the_current_balance_counted_across_templates() {
        // 2 h × 40 USD × (1 × 8 + 7 × 8 GPUs) = 5120 USD > 5000 USD; the launcher asks no GPUs
        Verdict v = admit.admit(MarketWorld.ACME_TRAIN,
                job("40", template("launcher", 1, 0), template("chief", 1, 8), template("worker", 7, 8)));
        assertEquals("BalanceTooLow: the organization's balance is $5000.00, and this Job needs a balance of $5120.00 to "
                + "start: 2 hours × $40.00 per GPU-hour (its nationalcompute.com/limit-price label) × 64 GPUs. Top up the "
                + "organization's credits, or lower the limit price or the job's size.", v.message());
    }

    @Test
    void the_cluster_limit_price_binds_a_job_without_its_own() {
        new com.bettercompute.application.market.SetLimitPrice(w.ports.transactions(), w.markets).set(
                new com.bettercompute.application.market.SetLimitPrice.Command(MarketWorld.ACME_TRAIN, null, "40"));
        Verdict v = admit.admit(MarketWorld.ACME_TRAIN, job(null, template("worker", 8, 8)));
        assertEquals(Verdict.BALANCE_TOO_LOW, v.reason());
        assertTrue(v.message().contains("(the cluster's limit price)"), v.message());
    }

    @Test
    void pods_a_controller_makes_are_held_to_the_size_rules_only() {
        Workload replica = new Workload(Kind.POD, Operation.CREATE, "default", "train-0", Map.of(
                "nationalcompute.com/limit-price", "1000"), true, false, List.of(new PodTemplate("train-0", "", 1, 8, null, false)));
        assertTrue(admit.admit(MarketWorld.ACME_TRAIN, replica).allowed());
        Workload bare = new Workload(Kind.POD, Operation.CREATE, "default", "p", Map.of(
                "nationalcompute.com/limit-price", "1000"), false, false, List.of(new PodTemplate("p", "", 1, 8, null, false)));
        assertEquals(Verdict.BALANCE_TOO_LOW, admit.admit(MarketWorld.ACME_TRAIN, bare).reason());
    }

    @Test
    void an_update_is_never_refused_so_a_job_in_the_queue_is_never_refused_later() {
        Workload update = new Workload(Kind.JOB, Operation.UPDATE, "default", "train", Map.of(
                "nationalcompute.com/limit-price", "1000"), false, false, List.of(template("worker", 1, 4)));
        assertTrue(admit.admit(MarketWorld.ACME_TRAIN, update).allowed());
    }

    @Test
    void a_cluster_outside_the_market_is_not_held_to_its_rules() {
        assertTrue(admit.admit(MarketWorld.ACME_EU, job(null, template("worker", 1, 3))).allowed());
    }

    @Test
    void a_node_class_the_site_does_not_sell_is_refused_with_the_classes_it_sells() {
        Verdict v = admit.admit(MarketWorld.ACME_TRAIN, job(null, new PodTemplate("worker", "/spec/template", 1, 8, "a100-4x", false)));
        assertEquals("NodeClassRequired: Job \"train\", pod template \"worker\", requests 8 GPUs per pod of node class "
                + "a100-4x, which this cluster's site us-central1 does not sell; it sells 1 (h100-8x). Set the node "
                + "selector nationalcompute.com/node-class to one of them.", v.message());
    }

    @Test
    void the_packing_switch_refuses_new_sub_node_pods_from_that_moment() {
        packing(true);
        Workload retry = pod(4, true);
        assertTrue(admit.admit(MarketWorld.ACME_TRAIN, retry).allowed());
        packing(false);
        // a Job's retry and a Deployment's new replica are pods a controller makes: refused the same way
        Verdict v = admit.admit(MarketWorld.ACME_TRAIN, retry);
        assertEquals(Verdict.JOB_SIZE_TOO_SMALL, v.reason());
        assertEquals("JobSizeTooSmall: Pod \"p\" requests 4 GPUs per pod, which is not a multiple of 8, the GPUs of one "
                + "node of us-central1/h100-8x. The market assigns whole nodes and packing onto the base load block is "
                + "off for this cluster: request 8 GPUs per pod, as several whole-node pods for a multi-node job.", v.message());
        packing(true);
        assertTrue(admit.admit(MarketWorld.ACME_TRAIN, retry).allowed());
    }

    @Test
    void switching_packing_off_never_touches_a_sub_node_job_already_on_the_block() {
        w.enrol.enrol(new EnrolCluster.Command(MarketWorld.ACME_TRAIN, 64L, true,
                new EnrolCluster.Block(MarketWorld.POOL, 1)));
        new com.bettercompute.application.market.ReportBlockNode(w.ports.transactions(), w.markets, w.ports.outbox(),
                w.ports.clock()).ready(w.markets.load().cluster(MarketWorld.ACME_TRAIN).blockNodeIds().get(0));
        w.file("kcl_acmetrajn00000000000000000/default/small", MarketWorld.ACME_TRAIN, 4, null);
        w.tickAndReady();
        String before = phase("kcl_acmetrajn00000000000000000/default/small");
        assertEquals("SEATED", before);
        packing(false);
        w.tickAndReady();
        assertEquals(before, phase("kcl_acmetrajn00000000000000000/default/small"));
        assertTrue(w.markets.load().hasOpenRequest("kcl_acmetrajn00000000000000000/default/small"));
    }

    private String phase(String jobId) {
        return w.markets.load().openRequest(jobId).phase().name();
    }

    @ParameterizedTest(name = "{0} by {3}, owned {1}, declaration changed {2}: {4}")
    @CsvSource({
            "UPDATE, true,  true,  tenant,   StationOwned",
            "DELETE, true,  false, tenant,   StationOwned",
            "UPDATE, true,  false, tenant,   allowed",
            "UPDATE, false, true,  tenant,   allowed",
            "DELETE, false, false, tenant,   allowed",
            "CREATE, true,  true,  tenant,   allowed",
            "UPDATE, true,  true,  PLATFORM, allowed",
            "DELETE, true,  false, PLATFORM, allowed",
    })
    void the_platforms_kueue_objects_refuse_a_tenants_edit(Operation op, boolean owned, boolean changed, String user,
                                                           String expected) {
        String username = user.equals("PLATFORM") ? PLATFORM : "alice@acme.example";
        Verdict v = admit.guard(new PlatformObjectChange("ClusterQueue", "market", op, owned, changed, username));
        assertEquals(expected, v.allowed() ? "allowed" : v.reason());
    }

    @Test
    void a_station_owned_refusal_says_what_and_why() {
        Verdict v = admit.guard(new PlatformObjectChange("ClusterQueue", "market", Operation.UPDATE, true, true,
                "alice@acme.example"));
        assertEquals("StationOwned: ClusterQueue \"market\" is the platform's (nationalcompute.com/owned-by: platform) "
                + "and cannot be changed by alice@acme.example. The platform keeps it as the market declares it; the quota "
                + "of ClusterQueue \"market\" is your max cluster size: ask support to change it.", v.message());
    }

    @Test
    void a_market_that_cannot_be_read_refuses_gpu_workloads_and_lets_cpu_work_through() {
        MarketRepository down = new MarketRepository() {
            @Override
            public Market load() {
                throw new IllegalStateException("the database is unreachable");
            }

            @Override
            public long version() {
                throw new IllegalStateException("the database is unreachable");
            }

            @Override
            public void save(Market market) {
                throw new UnsupportedOperationException();
            }

            @Override
            public List<Episode> episodes(String clusterId) {
                return new ArrayList<>();
            }

            @Override
            public List<Closed> closed(String clusterId, int limit) {
                return new ArrayList<>();
            }
        };
        AdmitWorkload failing = new AdmitWorkload(down, w.ports.clusters(), Set.of(PLATFORM));
        Verdict gpu = failing.admit(MarketWorld.ACME_TRAIN, job(null, template("worker", 1, 8)));
        assertFalse(gpu.allowed());
        assertEquals(Verdict.UNAVAILABLE, gpu.code());
        assertEquals("AdmissionUnavailable: the platform cannot check this GPU workload now (it cannot read the market's "
                + "state); nothing was created. Apply it again in a minute.", gpu.message());
        assertTrue(failing.admit(MarketWorld.ACME_TRAIN, job(null, template("prep", 4, 0))).allowed());
    }
}
