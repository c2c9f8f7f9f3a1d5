package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.MarketClusterClient.DemandWatch;
import com.bettercompute.application.port.MarketClusterClient.ObservedJob;
import com.bettercompute.application.port.MarketClusterClient.PlatformObjects;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * API shapes of the demand watch of {@link Fabric8MarketClusterClient} on fabric8's CRUD mock: the objects
 * Kueue would make for a GPU Job (Job, Workload, PodTemplate, ProvisioningRequest, linked by owner
 * references) read as one job's demand, live. Not a Kueue integration test: no Kueue runs here.
 */
class DemandInformersOnFabric8MockTest {
    CrudMockCluster cluster;
    Fabric8MarketClusterClient client;
    DemandWatch watch;
    final Semaphore changes = new Semaphore(0);

    @BeforeEach
    void start() {
        cluster = new CrudMockCluster();
        client = new Fabric8MarketClusterClient(5000, 60_000);
        client.ensurePlatformObjects(cluster.connection(), new PlatformObjects(64, List.of()));
        watch = client.watchDemand(cluster.connection(), changes::release);
    }

    @AfterEach
    void stop() {
        watch.close();
        client.close();
        cluster.close();
    }

    /** Waits for watch events until the jobs read satisfy {@code wanted} (at most 20 events' worth). */
    List<ObservedJob> until(Predicate<List<ObservedJob>> wanted) throws InterruptedException {
        List<ObservedJob> jobs = watch.jobs();
        for (int i = 0; i < 20 && !(watch.synced() && wanted.test(jobs)); i++) {
            changes.tryAcquire(1, TimeUnit.SECONDS);
            jobs = watch.jobs();
        }
        return jobs;
    }

    GenericKubernetesResource kueueFiles(Job job, String attempt) {
        var c = cluster.admin();
        GenericKubernetesResource workload = KueueObjects.workload(c, job, "job-train-3f2a1");
        KueueObjects.template(c, "research", "ppt-job-train-3f2a1-market-" + attempt + "-main", 8, "h100-8x");
        return KueueObjects.request(c, workload, "job-train-3f2a1-market-" + attempt, "market.nationalcompute.com",
                "ppt-job-train-3f2a1-market-" + attempt + "-main", 2);
    }

    @Test
    void a_kueue_request_reads_as_one_jobs_gang_with_its_labels() throws InterruptedException {
        Job job = KueueObjects.job(cluster.admin(), "research", "train",
                Map.of("nationalcompute.com/limit-price", "2.50", "kueue.x-k8s.io/priority-class", "high"));
        kueueFiles(job, "1");

        List<ObservedJob> jobs = until(j -> !j.isEmpty());

        assertThat(jobs).singleElement().satisfies(j -> {
            assertThat(j.job().kind()).isEqualTo("Job");
            assertThat(j.job().namespace()).isEqualTo("research");
            assertThat(j.job().name()).isEqualTo("train");
            assertThat(j.gpus()).isEqualTo(16);
            assertThat(j.nodeClass()).isEqualTo("h100-8x");
            assertThat(j.limitLabel()).isEqualTo("2.50");
            assertThat(j.priorityLabel()).isEqualTo("high");
            assertThat(j.ended()).isFalse();
            assertThat(j.requests()).extracting(r -> r.name()).containsExactly("job-train-3f2a1-market-1");
        });
    }

    @Test
    void a_changed_job_label_is_seen_live() throws InterruptedException {
        Job job = KueueObjects.job(cluster.admin(), "research", "train", Map.of("nationalcompute.com/limit-price", "2.50"));
        kueueFiles(job, "1");
        until(j -> !j.isEmpty());

        cluster.admin().batch().v1().jobs().inNamespace("research").withName("train")
                .edit(j -> { j.getMetadata().getLabels().put("nationalcompute.com/limit-price", "4.00"); return j; });

        assertThat(until(j -> !j.isEmpty() && "4.00".equals(j.get(0).limitLabel())).get(0).limitLabel()).isEqualTo("4.00");
    }

    @Test
    void a_finished_workload_reads_as_an_ended_job() throws InterruptedException {
        Job job = KueueObjects.job(cluster.admin(), "research", "train", Map.of());
        GenericKubernetesResource request = kueueFiles(job, "1");
        until(j -> !j.isEmpty());
        var workloads = cluster.admin().genericKubernetesResources(KueueObjects.WORKLOADS).inNamespace("research");
        GenericKubernetesResource workload = workloads.withName("job-train-3f2a1").get();
        workload.setAdditionalProperty("status", Map.of("conditions", List.of(Map.of("type", "Finished", "status", "True",
                "reason", "Succeeded", "message", "done", "lastTransitionTime", "2026-03-01T12:00:00Z"))));
        workloads.resource(workload).updateStatus();
        // The watch informs on requests, not Workloads: touching the request is what Kueue's own status
        // writes would do; a resync would find it too.
        request.getMetadata().setLabels(Map.of("kueue.x-k8s.io/managed", "true", "touched", "yes"));
        cluster.admin().genericKubernetesResources(Fabric8DemandWatch.PROVISIONING_REQUESTS).inNamespace("research")
                .resource(request).update();

        assertThat(until(j -> !j.isEmpty() && j.get(0).ended()).get(0).ended()).isTrue();
    }

    @Test
    void a_job_between_two_attempts_stays_listed_without_a_request_until_its_next_is_filed() throws InterruptedException {
        Job job = KueueObjects.job(cluster.admin(), "research", "train", Map.of("nationalcompute.com/limit-price", "2.50"));
        GenericKubernetesResource first = kueueFiles(job, "1");
        until(j -> !j.isEmpty());
        var workloads = cluster.admin().genericKubernetesResources(KueueObjects.WORKLOADS).inNamespace("research");
        GenericKubernetesResource workload = workloads.withName("job-train-3f2a1").get();
        // requeued after a failed attempt: Kueue deletes the attempt's request just before it files the next
        workload.setAdditionalProperty("status", Map.of("admissionChecks", List.of(Map.of("name", "market", "state", "Pending",
                "message", "", "lastTransitionTime", "2026-03-01T12:00:00Z"))));
        workloads.resource(workload).updateStatus();
        cluster.admin().genericKubernetesResources(Fabric8DemandWatch.PROVISIONING_REQUESTS).inNamespace("research")
                .withName(first.getMetadata().getName()).delete();

        List<ObservedJob> between = until(j -> !j.isEmpty() && j.get(0).requests().isEmpty());

        assertThat(between).singleElement().satisfies(j -> {
            assertThat(j.job().name()).isEqualTo("train");
            assertThat(j.requests()).isEmpty();
            assertThat(j.limitLabel()).isEqualTo("2.50");
            assertThat(j.ended()).isFalse();
            assertThat(j.quotaWait()).isFalse();
        });
    }

    @Test
    void requests_of_another_class_or_without_a_workload_are_not_demand_and_a_deleted_request_leaves() throws InterruptedException {
        Job job = KueueObjects.job(cluster.admin(), "research", "train", Map.of());
        GenericKubernetesResource workload = KueueObjects.workload(cluster.admin(), job, "job-train-3f2a1");
        KueueObjects.template(cluster.admin(), "research", "ppt-other", 8, null);
        KueueObjects.request(cluster.admin(), workload, "job-train-3f2a1-other-1", "queued-provisioning.gke.io", "ppt-other", 1);
        GenericKubernetesResource ours = KueueObjects.request(cluster.admin(), workload, "job-train-3f2a1-market-1",
                "market.nationalcompute.com", "ppt-other", 1);
        assertThat(until(j -> !j.isEmpty())).singleElement()
                .satisfies(j -> assertThat(j.requests()).extracting(r -> r.name()).containsExactly("job-train-3f2a1-market-1"));

        cluster.admin().genericKubernetesResources(Fabric8DemandWatch.PROVISIONING_REQUESTS).inNamespace("research")
                .withName(ours.getMetadata().getName()).delete();

        assertThat(until(List::isEmpty)).isEmpty();
    }
}
