package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.LoadBalancerClusterClient;
import com.bettercompute.application.port.MarketClusterClient;
import com.bettercompute.domain.loadbalancer.LoadBalancerClass;
import com.bettercompute.domain.loadbalancer.LoadBalancerService;
import com.bettercompute.domain.loadbalancer.ServicePort;
import com.bettercompute.domain.loadbalancer.Worker;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** One tenant cluster's Services and Nodes, through two informers on one long-lived client. */
final class Fabric8ServiceWatch implements LoadBalancerClusterClient.ServiceWatch {
    /** A node kept out of every load balancer, as Kubernetes' service controller reads it. */
    static final String EXCLUDE_LABEL = "node.kubernetes.io/exclude-from-external-load-balancers";
    /** The taint the cluster autoscaler puts on a node it removes. */
    static final String TO_BE_DELETED = "ToBeDeletedByClusterAutoscaler";

    private final ClusterApis.Lease lease;
    private final KubernetesClient client;
    private final SharedIndexInformer<Service> services;
    private final SharedIndexInformer<Node> nodes;
    private final CompletableFuture<Void> started;

    Fabric8ServiceWatch(ClusterApis.Lease lease, Runnable onChange, long resyncMillis) {
        this.lease = lease;
        this.client = lease.client();
        ResourceEventHandler<HasMetadata> handler = Fabric8DemandWatch.onAnyChange(onChange);
        services = client.services().inAnyNamespace().runnableInformer(resyncMillis);
        nodes = client.nodes().runnableInformer(resyncMillis);
        services.addEventHandler(handler);
        nodes.addEventHandler(handler);
        started = CompletableFuture.allOf(services.start().toCompletableFuture(), nodes.start().toCompletableFuture());
    }

    @Override
    public boolean synced() {
        return services.hasSynced() && nodes.hasSynced();
    }

    @Override
    public List<LoadBalancerService> services() {
        return services.getStore().list().stream()
                .filter(s -> "LoadBalancer".equals(s.getSpec().getType()) || finalizer(s))
                .sorted(Comparator.comparing((Service s) -> s.getMetadata().getCreationTimestamp() == null ? ""
                        : s.getMetadata().getCreationTimestamp()).thenComparing(s -> s.getMetadata().getUid()))
                .map(Fabric8ServiceWatch::service).toList();
    }

    static LoadBalancerService service(Service s) {
        var spec = s.getSpec();
        List<ServicePort> ports = spec.getPorts() == null ? List.of() : spec.getPorts().stream()
                .map(p -> new ServicePort(p.getName(), p.getProtocol(), p.getPort() == null ? 0 : p.getPort(),
                        p.getNodePort() == null ? 0 : p.getNodePort())).toList();
        String ip = s.getStatus() == null || s.getStatus().getLoadBalancer() == null || s.getStatus().getLoadBalancer().getIngress() == null
                || s.getStatus().getLoadBalancer().getIngress().isEmpty() ? null : s.getStatus().getLoadBalancer().getIngress().get(0).getIp();
        return new LoadBalancerService(s.getMetadata().getNamespace(), s.getMetadata().getName(), s.getMetadata().getUid(),
                "LoadBalancer".equals(spec.getType()), spec.getLoadBalancerClass(), ports,
                !Boolean.FALSE.equals(spec.getAllocateLoadBalancerNodePorts()), "Local".equals(spec.getExternalTrafficPolicy()),
                spec.getHealthCheckNodePort() == null ? 0 : spec.getHealthCheckNodePort(),
                s.getMetadata().getDeletionTimestamp() != null, finalizer(s), ip);
    }

    private static boolean finalizer(Service s) {
        return s.getMetadata().getFinalizers() != null && s.getMetadata().getFinalizers().contains(LoadBalancerClass.CLEANUP_FINALIZER);
    }

    @Override
    public List<Worker> workers() {
        return nodes.getStore().list().stream().map(Fabric8ServiceWatch::worker).sorted(Comparator.comparing(Worker::node)).toList();
    }

    static Worker worker(Node n) {
        MarketClusterClient.ClusterNode node = Fabric8MarketClusterClient.node(n);
        boolean notice = node.taints().stream().anyMatch(t -> MarketClusterClient.PREEMPTING_TAINT.equals(t.key()));
        boolean excluded = node.labels().containsKey(EXCLUDE_LABEL)
                || node.taints().stream().anyMatch(t -> TO_BE_DELETED.equals(t.key()));
        return new Worker(node.name(), instance(n.getSpec() == null ? null : n.getSpec().getProviderID(), node.labels(), node.name()),
                node.ready(), notice, excluded);
    }

    /**
     * The instance behind a node: from its {@code providerID} ({@code gce://<project>/<zone>/<instance>}), else from its
     * zone label, in the form Compute Engine names instances ({@code projects/P/zones/Z/instances/N}).
     */
    static String instance(String providerId, Map<String, String> labels, String name) {
        if (providerId != null && providerId.startsWith("gce://")) {
            String[] p = providerId.substring("gce://".length()).split("/");
            if (p.length == 3) {
                return "projects/" + p[0] + "/zones/" + p[1] + "/instances/" + p[2];
            }
        }
        String zone = labels.getOrDefault("topology.kubernetes.io/zone", "unknown");
        return "projects/-/zones/" + zone + "/instances/" + name;
    }

    @Override
    public void close() {
        try {
            // let the first lists finish before the client closes under them
            started.get(Fabric8DemandWatch.START_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // closed anyway
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        services.close();
        nodes.close();
        lease.close();
    }
}
