package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.MarketClusterClient.Condition;
import com.bettercompute.application.port.MarketClusterClient.ObjectRef;
import com.bettercompute.application.port.MarketClusterClient.ObservedRequest;
import com.bettercompute.application.port.MarketClusterClient.PlatformObjects;
import com.bettercompute.application.port.MarketClusterClient.PostedEvent;
import com.bettercompute.application.port.MarketClusterClient.RequestStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.x_k8s.autoscaling.v1.ProvisioningRequest;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * API shapes of the market's writes into a cluster by {@link Fabric8MarketClusterClient} on fabric8's CRUD
 * mock: a ProvisioningRequest's status through its status subresource, its annotations, and Events on the
 * job. Not a Kueue integration test.
 */
class RequestStatusOnFabric8MockTest {
    static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    static final String NAME = "job-train-3f2a1-market-1";

    CrudMockCluster cluster;
    Fabric8MarketClusterClient client;
    ObjectRef jobRef;

    @BeforeEach
    void start() {
        cluster = new CrudMockCluster();
        client = new Fabric8MarketClusterClient(5000, 60_000);
        client.ensurePlatformObjects(cluster.connection(), new PlatformObjects(64, List.of()));
        Job job = KueueObjects.job(cluster.admin(), "research", "train", Map.of());
        GenericKubernetesResource workload = KueueObjects.workload(cluster.admin(), job, "job-train-3f2a1");
        KueueObjects.template(cluster.admin(), "research", "ppt", 8, "h100-8x");
        KueueObjects.request(cluster.admin(), workload, NAME, "market.nationalcompute.com", "ppt", 2);
        jobRef = new ObjectRef("batch/v1", "Job", "research", "train", job.getMetadata().getUid());
    }

    @AfterEach
    void stop() {
        client.close();
        cluster.close();
    }

    ProvisioningRequest request() {
        return cluster.admin().resources(ProvisioningRequest.class).inNamespace("research").withName(NAME).get();
    }

    static RequestStatus waiting(String reason, Instant at) {
        return new RequestStatus("kcl_a/research/train", 1, List.of(
                new Condition("Accepted", "True", "Accepted", "The market read this request.", at),
                new Condition("Provisioned", "False", reason, reason + ": waiting", at)), Map.of());
    }

    @Test
    void writes_conditions_through_the_status_subresource_and_the_market_request_in_an_annotation() {
        client.writeRequestStatus(cluster.connection(), "research", NAME, waiting("BidTooLow", T0));

        ObservedRequest read = Fabric8DemandWatch.observed(request());
        assertThat(read.marketRequest()).isEqualTo("kcl_a/research/train");
        assertThat(read.reasonChanges()).isEqualTo(1);
        assertThat(read.condition("Accepted").status()).isEqualTo("True");
        assertThat(read.condition("Provisioned").reason()).isEqualTo("BidTooLow");
        assertThat(read.condition("Provisioned").message()).isEqualTo("BidTooLow: waiting");
        assertThat(read.condition("Provisioned").lastTransition()).isEqualTo(T0);
    }

    @Test
    void a_status_that_holds_is_not_written_and_an_unchanged_status_keeps_its_transition_time() {
        client.writeRequestStatus(cluster.connection(), "research", NAME, waiting("BidTooLow", T0));
        String version = request().getMetadata().getResourceVersion();
        client.writeRequestStatus(cluster.connection(), "research", NAME, waiting("BidTooLow", T0.plusSeconds(5)));
        assertThat(request().getMetadata().getResourceVersion()).isEqualTo(version);

        client.writeRequestStatus(cluster.connection(), "research", NAME, waiting("Outbid", T0.plusSeconds(10)));

        ObservedRequest read = Fabric8DemandWatch.observed(request());
        assertThat(read.condition("Provisioned").reason()).isEqualTo("Outbid");
        assertThat(read.condition("Provisioned").lastTransition()).as("still False since T0").isEqualTo(T0);
    }

    @Test
    void provisioned_true_carries_the_request_label_in_the_class_details_and_other_conditions_stay() {
        client.writeRequestStatus(cluster.connection(), "research", NAME, waiting("Provisioning", T0));
        client.writeRequestStatus(cluster.connection(), "research", NAME, new RequestStatus("kcl_a/research/train", 2,
                List.of(new Condition("Provisioned", "True", "Provisioned", "all 2 granted nodes ready", T0.plusSeconds(90))),
                Map.of("nationalcompute.com/request", "r-0123456789abcdef0123")));

        ProvisioningRequest r = request();
        ObservedRequest read = Fabric8DemandWatch.observed(r);
        assertThat(read.condition("Provisioned").status()).isEqualTo("True");
        assertThat(read.condition("Provisioned").lastTransition()).isEqualTo(T0.plusSeconds(90));
        assertThat(read.condition("Accepted")).isNotNull();
        assertThat(r.getStatus().getProvisioningClassDetails())
                .isEqualTo(Map.of("nationalcompute.com/request", "r-0123456789abcdef0123"));
    }

    @Test
    void a_request_that_is_gone_is_a_success() {
        client.writeRequestStatus(cluster.connection(), "research", "job-gone-1-market-1", waiting("Pending", T0));

        assertThat(cluster.admin().genericKubernetesResources(Fabric8DemandWatch.PROVISIONING_REQUESTS).inNamespace("research")
                .list().getItems()).hasSize(1);
    }

    @Test
    void an_event_on_the_job_is_posted_once_under_its_name() {
        PostedEvent event = new PostedEvent("train.0123456789abcdef", "Normal", "BidTooLow", "BidTooLow: raise your limit", T0);

        client.postEvent(cluster.connection(), jobRef, event);
        client.postEvent(cluster.connection(), jobRef, event);

        List<Event> events = cluster.admin().v1().events().inNamespace("research").list().getItems();
        assertThat(events).singleElement().satisfies(e -> {
            assertThat(e.getMetadata().getName()).isEqualTo("train.0123456789abcdef");
            assertThat(e.getInvolvedObject().getKind()).isEqualTo("Job");
            assertThat(e.getInvolvedObject().getName()).isEqualTo("train");
            assertThat(e.getInvolvedObject().getUid()).isEqualTo(jobRef.uid());
            assertThat(e.getReason()).isEqualTo("BidTooLow");
            assertThat(e.getType()).isEqualTo("Normal");
            assertThat(e.getSource().getComponent()).isEqualTo(Fabric8MarketClusterClient.EVENT_SOURCE);
        });
    }
}
