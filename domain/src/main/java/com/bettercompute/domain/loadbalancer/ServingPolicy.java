package com.bettercompute.domain.loadbalancer;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What a LoadBalancer Service of the platform's class is served with, from its spec and its cluster's nodes:
 * its TCP ports (UDP and SCTP are skipped, and said so), each at its NodePort, backed by every Ready worker
 * that is not under the market's reclaim notice nor excluded, health-checked as {@link HealthCheck#of} says.
 * The limits (region, caps, pool) are {@link AllocationPolicy}'s, and apply only to a Service that holds no
 * address yet.
 */
public final class ServingPolicy {
    private ServingPolicy() {
    }

    /** The decision: serve, or refuse with a reason; either way the ports it skips. */
    public sealed interface Decision permits Serve, Refuse {
        List<ServicePort> skipped();
    }

    /**
     * Serve on {@code ports} (sorted by port), backed by {@code backends} (instances, sorted), checked by
     * {@code healthCheck}.
     */
    public record Serve(List<ServicePort> ports, List<ServicePort> skipped, List<String> backends, HealthCheck healthCheck)
            implements Decision {
        public Serve {
            ports = List.copyOf(ports);
            skipped = List.copyOf(skipped);
            backends = List.copyOf(backends);
        }

        /** The port numbers served, ascending. */
        public List<Integer> portNumbers() {
            return ports.stream().map(ServicePort::port).distinct().sorted().toList();
        }
    }

    public record Refuse(Refusal refusal, List<ServicePort> skipped) implements Decision {
        public Refuse {
            skipped = List.copyOf(skipped);
        }
    }

    public static Decision decide(LoadBalancerService service, List<Worker> workers) {
        List<ServicePort> tcp = new ArrayList<>();
        List<ServicePort> skipped = new ArrayList<>();
        for (ServicePort p : service.ports()) {
            (p.tcp() ? tcp : skipped).add(p);
        }
        if (tcp.isEmpty()) {
            return new Refuse(new Refusal(RefusalReason.UNSUPPORTED_PROTOCOL, service.ports().isEmpty()
                    ? "the Service has no ports; only TCP ports are served"
                    : "none of its ports is TCP (" + labels(skipped) + "); only TCP ports are served"), skipped);
        }
        if (!service.allocateNodePorts()) {
            return new Refuse(new Refusal(RefusalReason.NO_NODE_PORT,
                    "allocateLoadBalancerNodePorts is false: every Ready worker serves it at its NodePort, keep it true"), skipped);
        }
        List<ServicePort> unallocated = tcp.stream().filter(p -> p.nodePort() <= 0).toList();
        if (!unallocated.isEmpty()) {
            return new Refuse(new Refusal(RefusalReason.NO_NODE_PORT, "no NodePort is allocated for " + labels(unallocated)), skipped);
        }
        if (service.localTraffic() && service.healthCheckNodePort() <= 0) {
            return new Refuse(new Refusal(RefusalReason.NO_NODE_PORT,
                    "externalTrafficPolicy is Local but no healthCheckNodePort is allocated"), skipped);
        }
        List<String> backends = backends(workers);
        if (backends.isEmpty()) {
            return new Refuse(new Refusal(RefusalReason.NO_READY_WORKERS,
                    "the cluster has no Ready worker to back it"), skipped);
        }
        tcp.sort(Comparator.comparingInt(ServicePort::port));
        return new Serve(tcp, skipped, backends, HealthCheck.of(service));
    }

    /**
     * The instances that back a load balancer: every Ready worker, less those under reclaim notice (they leave at
     * notice time, not when they go) and those excluded; sorted, each once.
     */
    public static List<String> backends(List<Worker> workers) {
        return workers.stream().filter(w -> w.ready() && !w.underNotice() && !w.excluded())
                .map(Worker::instance).distinct().sorted().toList();
    }

    static String labels(List<ServicePort> ports) {
        return String.join(", ", ports.stream().map(ServicePort::label).toList());
    }
}
