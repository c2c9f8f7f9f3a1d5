package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.LoadBalancerClusterClient;
import com.bettercompute.application.port.LoadBalancerClusterClient.ServiceWatch;
import com.bettercompute.application.port.MarketClusterClient.ObjectRef;
import com.bettercompute.application.port.MarketClusterClient.PostedEvent;
import com.bettercompute.domain.loadbalancer.LoadBalancerClass;
import com.bettercompute.domain.loadbalancer.LoadBalancerService;
import com.bettercompute.domain.loadbalancer.ServicePort;
import com.bettercompute.domain.loadbalancer.Worker;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-cluster side of load balancers, {@link Fabric8LoadBalancerClusterClient} and its Service watch, on fabric8's
 * CRUD mock: a LoadBalancer Service and the nodes as the watch reads them, the platform's finalizer put on and taken
 * off (once each, whatever is asked twice), the address written through the status subresource, an Event named after
 * what it says shown once, and a reference to a Service that was deleted and made again left alone. One mock cluster
 * and one watch serve every test; each test has Services of its own names.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LoadBalancerServicesOnFabric8MockTest {
    CrudMockCluster cluster;
    Fabric8LoadBalancerClusterClient client;
    ServiceWatch watch;
    final Semaphore changes = new Semaphore(0);

    @BeforeAll
    void start() {
        cluster = new CrudMockCluster();
        client = new Fabric8LoadBalancerClusterClient(5000, 60_000);
        watch = client.watch(cluster.connection(), changes::release);
    }

    @AfterAll
    void stop() {
        watch.close();
        client.close();
        cluster.close();
    }

    /**
     * Waits for watch events until the watch's Services named {@code name} satisfy {@code wanted} (at most 20 events'
     * worth).
     */
    List<LoadBalancerService> until(String name, Predicate<List<LoadBalancerService>> wanted) throws InterruptedException {
        List<LoadBalancerService> seen = named(name);
        for (int i = 0; i < 20 && !(watch.synced() && wanted.test(seen)); i++) {
            changes.tryAcquire(1, TimeUnit.SECONDS);
            seen = named(name);
        }
        return seen;
    }

    List<LoadBalancerService> named(String name) {
        return watch.services().stream().filter(s -> s.name().equals(name)).toList();
    }

    Service serve(String name) {
        return cluster.admin().services().inNamespace("shop").resource(new ServiceBuilder()
                .withNewMetadata().withName(name).withNamespace("shop").endMetadata()
                .withNewSpec().withType("LoadBalancer").withLoadBalancerClass(LoadBalancerClass.PLATFORM)
                .withExternalTrafficPolicy("Local").withHealthCheckNodePort(31999)
                .addNewPort().withName("https").withProtocol("TCP").withPort(443).withNodePort(30443).endPort()
                .addNewPort().withName("dns").withProtocol("UDP").withPort(53).withNodePort(30053).endPort()
                .endSpec().build()).create();
    }

    Service read(String name) {
        return cluster.admin().services().inNamespace("shop").withName(name).get();
    }

    static ObjectRef ref(Service s) {
        return new ObjectRef("v1", "Service", s.getMetadata().getNamespace(), s.getMetadata().getName(), s.getMetadata().getUid());
    }

    @Test
    void the_watch_reads_a_load_balancer_service_and_the_nodes_that_may_back_it() throws InterruptedException {
        Service created = serve("watched");
        cluster.admin().services().inNamespace("shop").resource(new ServiceBuilder().withNewMetadata().withName("inside")
                .withNamespace("shop").endMetadata().withNewSpec().withType("ClusterIP").addNewPort().withPort(80).endPort()
                .endSpec().build()).create();
        cluster.admin().nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-1")
                .addToLabels("topology.kubernetes.io/zone", "us-central1-a").endMetadata()
                .withNewSpec().withProviderID("gce://platform-prod/us-central1-a/gke-gpu-1").endSpec()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build()).create();

        List<LoadBalancerService> services = until("watched", s -> s.size() == 1 && !watch.workers().isEmpty());

        assertThat(named("inside")).as("a ClusterIP Service is not the watch's").isEmpty();

        assertThat(services).singleElement().satisfies(s -> {
            assertThat(s.uid()).isEqualTo(created.getMetadata().getUid());
            assertThat(s.typeLoadBalancer()).isTrue();
            assertThat(s.loadBalancerClass()).isEqualTo(LoadBalancerClass.PLATFORM);
            assertThat(s.ports()).containsExactly(new ServicePort("https", "TCP", 443, 30443), new ServicePort("dns", "UDP", 53, 30053));
            assertThat(s.localTraffic()).isTrue();
            assertThat(s.healthCheckNodePort()).isEqualTo(31999);
            assertThat(s.allocateNodePorts()).isTrue();
            assertThat(s.finalizer()).isFalse();
            assertThat(s.ingressIp()).isNull();
        });
        assertThat(watch.workers()).containsExactly(new Worker("gpu-1", "projects/platform-prod/zones/us-central1-a/instances/gke-gpu-1",
                true, false, false));
    }

    @Test
    void the_finalizer_goes_on_once_and_comes_off_once_and_the_address_is_written_through_the_status() throws InterruptedException {
        Service s = serve("finalized");

        client.addFinalizer(cluster.connection(), ref(s));
        client.addFinalizer(cluster.connection(), ref(s));
        assertThat(read("finalized").getMetadata().getFinalizers()).containsExactly(LoadBalancerClass.CLEANUP_FINALIZER);

        client.writeIngress(cluster.connection(), ref(s), "127.0.10.7");
        assertThat(read("finalized").getStatus().getLoadBalancer().getIngress()).singleElement()
                .satisfies(i -> assertThat(i.getIp()).isEqualTo("127.0.10.7"));
        assertThat(until("finalized", l -> l.size() == 1 && "127.0.10.7".equals(l.get(0).ingressIp()) && l.get(0).finalizer()))
                .singleElement().satisfies(seen -> assertThat(seen.ingressIp()).isEqualTo("127.0.10.7"));

        client.writeIngress(cluster.connection(), ref(s), null);
        assertThat(read("finalized").getStatus().getLoadBalancer().getIngress()).isNullOrEmpty();

        client.removeFinalizer(cluster.connection(), ref(s));
        client.removeFinalizer(cluster.connection(), ref(s));
        assertThat(read("finalized").getMetadata().getFinalizers()).isNullOrEmpty();
    }

    @Test
    void a_service_deleted_and_made_again_is_another_one_and_is_left_alone() {
        Service before = serve("remade");
        cluster.admin().services().inNamespace("shop").withName("remade").delete();
        Service again = serve("remade");
        assertThat(again.getMetadata().getUid()).isNotEqualTo(before.getMetadata().getUid());

        client.addFinalizer(cluster.connection(), ref(before));
        client.writeIngress(cluster.connection(), ref(before), "127.0.10.8");

        Service now = read("remade");
        assertThat(now.getMetadata().getFinalizers()).isNullOrEmpty();
        assertThat(now.getStatus() == null || now.getStatus().getLoadBalancer() == null
                || now.getStatus().getLoadBalancer().getIngress() == null || now.getStatus().getLoadBalancer().getIngress().isEmpty())
                .as("no address written on the new Service").isTrue();
    }

    @Test
    void an_event_named_after_what_it_says_is_shown_once_on_the_service() {
        Service s = serve("told");
        PostedEvent said = new PostedEvent("told.lb-0123456789abcdef", "Warning", "UnsupportedProtocol",
                "Port dns (53/UDP) is not served: the load balancer forwards TCP only", Instant.parse("2026-03-01T10:00:00Z"));

        client.postEvent(cluster.connection(), ref(s), said);
        client.postEvent(cluster.connection(), ref(s), said);

        List<Event> events = cluster.admin().v1().events().inNamespace("shop").list().getItems().stream()
                .filter(e -> e.getInvolvedObject().getName().equals("told")).toList();
        assertThat(events).singleElement().satisfies(e -> {
            assertThat(e.getInvolvedObject().getKind()).isEqualTo("Service");
            assertThat(e.getMetadata().getName()).isEqualTo("told.lb-0123456789abcdef");
            assertThat(e.getInvolvedObject().getUid()).isEqualTo(s.getMetadata().getUid());
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getReason()).isEqualTo("UnsupportedProtocol");
            assertThat(e.getSource().getComponent()).isEqualTo(Fabric8LoadBalancerClusterClient.EVENT_SOURCE);
        });
    }

    @Test
    void a_service_that_is_gone_is_no_error() {
        Service s = serve("gone");
        cluster.admin().services().inNamespace("shop").withName("gone").delete();

        client.addFinalizer(cluster.connection(), ref(s));
        client.writeIngress(cluster.connection(), ref(s), "127.0.10.9");
        client.removeFinalizer(cluster.connection(), ref(s));

        assertThat(Optional.ofNullable(read("gone"))).isEmpty();
    }
}
