package com.bettercompute.adapters.k8s.simulator;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What kube-apiserver's Service registry allocates, done in one simulated cluster right after each write (in the same
 * round, before anyone else can read the Service; the create's own answer does not show it yet): a
 * {@code clusterIP}; a {@code nodePort} from 30000–32767 for each port of a NodePort Service, and of a
 * LoadBalancer Service unless {@code allocateLoadBalancerNodePorts} is false; a {@code healthCheckNodePort} for
 * a LoadBalancer Service with {@code externalTrafficPolicy: Local}; and the release of all of them when the type no
 * longer needs them. Each NodePort is taken once in the cluster.
 */
final class SimulatedServices {
    static final int FIRST_NODE_PORT = 30000;
    static final int LAST_NODE_PORT = 32767;
    private static final String SERVICES = "/api/v1/services";

    private final ClusterStore store;

    SimulatedServices(ClusterStore store) {
        this.store = store;
    }

    /** One round: allocates what is missing and releases what a Service's type no longer needs. */
    void reconcile() {
        List<Map<String, Object>> services = store.list(SERVICES);
        Set<Long> taken = new HashSet<>();
        for (Map<String, Object> s : services) {
            for (Object p : Obj.list(Obj.at(s, "spec", "ports"))) {
                long port = Obj.num(Obj.map(p), 0, "nodePort");
                if (port > 0) {
                    taken.add(port);
                }
            }
            long hc = Obj.num(s, 0, "spec", "healthCheckNodePort");
            if (hc > 0) {
                taken.add(hc);
            }
        }
        int ip = 10;
        for (Map<String, Object> s : services) {
            Map<String, Object> changed = Obj.copy(s);
            Map<String, Object> spec = Obj.child(changed, "spec");
            String type = Objects.requireNonNullElse(Obj.str(changed, "spec", "type"), "ClusterIP");
            boolean lb = type.equals("LoadBalancer");
            boolean nodePorts = type.equals("NodePort") || (lb && !Boolean.FALSE.equals(spec.get("allocateLoadBalancerNodePorts")));
            if (spec.get("clusterIP") == null && !type.equals("ExternalName")) {
                spec.put("clusterIP", "10.96." + (Math.abs(Obj.name(s).hashCode()) % 250) + "." + (ip++ % 250 + 1));
            }
            for (Object o : Obj.list(spec.get("ports"))) {
                Map<String, Object> port = Obj.map(o);
                if (nodePorts && Obj.num(port, 0, "nodePort") <= 0) {
                    port.put("nodePort", free(taken));
                } else if (!nodePorts && port.containsKey("nodePort") && !lb) {
                    port.remove("nodePort");
                }
            }
            boolean local = lb && "Local".equals(spec.get("externalTrafficPolicy"));
            if (local && Obj.num(changed, 0, "spec", "healthCheckNodePort") <= 0) {
                spec.put("healthCheckNodePort", free(taken));
            } else if (!local && spec.containsKey("healthCheckNodePort")) {
                spec.remove("healthCheckNodePort");
            }
            if (!lb && spec.containsKey("loadBalancerClass")) {
                spec.remove("loadBalancerClass");
            }
            String path = "/api/v1/namespaces/" + Obj.namespace(s) + "/services/" + Obj.name(s);
            Map<String, Object> stored = changed.equals(s) ? s : store.replace(path, withoutStatus(changed));
            if (stored != null && stored.get("status") == null) {
                // as kube-apiserver answers a new Service: an empty load balancer status
                Map<String, Object> withStatus = Obj.copy(stored);
                withStatus.put("status", new java.util.LinkedHashMap<>(Map.of("loadBalancer", new java.util.LinkedHashMap<>())));
                store.replaceStatus(path, withStatus);
            }
        }
    }

    /** The main resource never writes a Service's status (a subresource): the update keeps what is stored. */
    private static Map<String, Object> withoutStatus(Map<String, Object> service) {
        Map<String, Object> copy = Obj.copy(service);
        copy.remove("status");
        return copy;
    }

    private static long free(Set<Long> taken) {
        for (long p = FIRST_NODE_PORT; p <= LAST_NODE_PORT; p++) {
            if (taken.add(p)) {
                return p;
            }
        }
        throw new IllegalStateException("no NodePort left in " + FIRST_NODE_PORT + "-" + LAST_NODE_PORT);
    }
}
