package com.bettercompute.adapters.k8s.simulator;

import io.fabric8.kubernetes.api.model.LoadBalancerIngressBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The simulated API server's Services, through fabric8, as kube-apiserver keeps them: NodePorts, status, finalizers. */
class SimulatedServicesTest {
    static SimulatedCluster.World world;
    SimulatedCluster cluster;

    @BeforeAll
    static void startWorld() {
        world = new SimulatedCluster.World(SimulatedKubernetesApis.Settings.DEFAULTS);
    }

    @AfterAll
    static void stopWorld() {
        world.close();
    }

    @BeforeEach
    void newCluster() {
        cluster = new SimulatedCluster(world);
    }

    @AfterEach
    void closeClient() {
        cluster.close();
    }

    Service create(String name, String type, String policy, Boolean allocate) {
        return cluster.client.services().inNamespace("default").resource(new ServiceBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withType(type).withExternalTrafficPolicy(policy).withAllocateLoadBalancerNodePorts(allocate)
                .withSelector(java.util.Map.of("app", name))
                .addNewPort().withName("https").withPort(443).withNewTargetPort(8443).endPort()
                .addNewPort().withName("http").withPort(80).withNewTargetPort(8080).endPort().endSpec().build()).create();
    }

    Service get(String name) {
        return cluster.client.services().inNamespace("default").withName(name).get();
    }

    @Test
    void a_load_balancer_service_gets_a_cluster_ip_and_a_node_port_per_port_each_taken_once() {
        create("a", "LoadBalancer", "Cluster", null);
        create("b", "NodePort", null, null);

        Service a = get("a");
        Service b = get("b");
        List<Integer> ports = new java.util.ArrayList<>();
        a.getSpec().getPorts().forEach(p -> ports.add(p.getNodePort()));
        b.getSpec().getPorts().forEach(p -> ports.add(p.getNodePort()));
        assertThat(ports).doesNotContainNull().doesNotHaveDuplicates().allMatch(p -> p >= 30000 && p <= 32767);
        assertThat(a.getSpec().getClusterIP()).startsWith("10.96.");
        assertThat(a.getSpec().getHealthCheckNodePort()).isNull();
    }

    @Test
    void external_traffic_policy_local_gets_a_health_check_node_port_and_allocate_false_gets_none() {
        create("local", "LoadBalancer", "Local", null);
        create("none", "LoadBalancer", "Cluster", false);

        assertThat(get("local").getSpec().getHealthCheckNodePort()).isBetween(30000, 32767);
        assertThat(get("none").getSpec().getPorts()).allSatisfy(p -> assertThat(p.getNodePort()).isNull());
    }

    @Test
    void status_is_written_through_its_subresource_and_kept_by_writes_of_the_service() {
        create("s", "LoadBalancer", "Cluster", null);
        Service s = get("s");
        s.getStatus().setLoadBalancer(new io.fabric8.kubernetes.api.model.LoadBalancerStatusBuilder()
                .withIngress(new LoadBalancerIngressBuilder().withIp("127.0.10.1").build()).build());
        cluster.client.services().inNamespace("default").resource(s).updateStatus();

        Service read = get("s");
        read.getMetadata().setLabels(java.util.Map.of("edited", "yes"));
        cluster.client.services().inNamespace("default").resource(read).update();

        assertThat(get("s").getStatus().getLoadBalancer().getIngress()).singleElement()
                .satisfies(i -> assertThat(i.getIp()).isEqualTo("127.0.10.1"));
        assertThat(get("s").getMetadata().getLabels()).containsEntry("edited", "yes");
    }

    @Test
    void a_finalizer_holds_a_deleted_service_until_it_is_taken_off() {
        create("f", "LoadBalancer", "Cluster", null);
        Service s = get("f");
        s.getMetadata().setFinalizers(List.of("nationalcompute.com/load-balancer-cleanup"));
        cluster.client.services().inNamespace("default").resource(s).update();

        cluster.client.services().inNamespace("default").withName("f").delete();
        Service held = get("f");
        assertThat(held).isNotNull();
        assertThat(held.getMetadata().getDeletionTimestamp()).isNotNull();

        held.getMetadata().setFinalizers(List.of());
        cluster.client.services().inNamespace("default").resource(held).update();
        assertThat(get("f")).isNull();
    }

    @Test
    void a_type_change_to_cluster_ip_releases_node_ports_and_the_class() {
        create("t", "LoadBalancer", "Local", null);
        Service s = get("t");
        s.getSpec().setLoadBalancerClass("nationalcompute.com/load-balancer");
        s = cluster.client.services().inNamespace("default").resource(s).update();
        s.getSpec().setType("ClusterIP");
        cluster.client.services().inNamespace("default").resource(s).update();

        Service t = get("t");
        assertThat(t.getSpec().getPorts()).allSatisfy(p -> assertThat(p.getNodePort()).isNull());
        assertThat(t.getSpec().getHealthCheckNodePort()).isNull();
        assertThat(t.getSpec().getLoadBalancerClass()).isNull();
    }
}
