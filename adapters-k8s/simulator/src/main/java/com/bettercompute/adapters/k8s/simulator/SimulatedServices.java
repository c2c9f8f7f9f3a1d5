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
    /** kube-proxy's health port. */
    static final int KUBE_PROXY_HEALTH_PORT = 10256;

    private final ClusterStore store;

    SimulatedServices(ClusterStore store) {
        this.store = store;
    }

    /** One round: allocates what is missing and releases what a Service's type no longer needs (what a write missed). */
    void reconcile() {
        for (Map<String, Object> s : store.list(SERVICES)) {
            String path = "/api/v1/namespaces/" + Obj.namespace(s) + "/services/" + Obj.name(s);
            Map<String, Object> changed = allocated(s);
            Map<String, Object> stored = changed.equals(s) ? s : store.replace(path, withoutStatus(changed));
            if (stored != null && stored.get("status") == null) {
                // as kube-apiserver answers a new Service: an empty load balancer status
                Map<String, Object> withStatus = Obj.copy(stored);
                withStatus.put("status", new java.util.LinkedHashMap<>(Map.of("loadBalancer", new java.util.LinkedHashMap<>())));
                store.replaceStatus(path, withStatus);
            }
        }
    }

    /**
     * A Service about to be written at {@code path} ({@code POST} or {@code PUT}), with what the registry allocates in
     * it, so that no reader ever sees it without; anything else as it is.
     */
    Map<String, Object> beforeWrite(String method, String path, Map<String, Object> object) {
        if (object == null || !("POST".equals(method) || "PUT".equals(method)) || !WRITE.matcher(path).matches()
                || !"Service".equals(object.get("kind"))) {
            return object;
        }
        return allocated(object);
    }

    /** {@link #beforeWrite(String, String, Map)} of a request's JSON body; the request as it is when it is not a Service's. */
    io.fabric8.mockwebserver.http.RecordedRequest beforeWrite(String method, String path, io.fabric8.mockwebserver.http.RecordedRequest r,
                                                             io.fabric8.kubernetes.client.utils.KubernetesSerialization json) {
        if (!("POST".equals(method) || "PUT".equals(method)) || !WRITE.matcher(path).matches() || r.getBody() == null) {
            return r;
        }
        Map<String, Object> object;
        try {
            object = store.parse(new String(r.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8));
        } catch (RuntimeException notJson) {
            return r;
        }
        Map<String, Object> allocated = beforeWrite(method, path, object);
        if (allocated == object) {
            return r;
        }
        return new io.fabric8.mockwebserver.http.RecordedRequest(r.getHttpVersion(), r.method(), r.getPath(), r.getHeaders(),
                new io.fabric8.mockwebserver.http.Buffer(json.asJson(allocated).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    private static final java.util.regex.Pattern WRITE = java.util.regex.Pattern.compile("^/api/v1/namespaces/[^/]+/services(/[^/]+)?$");

    /** The Service with its clusterIP, NodePorts and healthCheckNodePort as its type wants them, taken among the others'. */
    private Map<String, Object> allocated(Map<String, Object> s) {
        Set<Long> taken = new HashSet<>();
        int ip = 10;
        for (Map<String, Object> other : store.list(SERVICES)) {
            ip++;
            if (Objects.equals(Obj.name(other), Obj.name(s)) && Objects.equals(Obj.namespace(other), Obj.namespace(s))) {
                continue;
            }
            for (Object p : Obj.list(Obj.at(other, "spec", "ports"))) {
                long port = Obj.num(Obj.map(p), 0, "nodePort");
                if (port > 0) {
                    taken.add(port);
                }
            }
            long hc = Obj.num(other, 0, "spec", "healthCheckNodePort");
            if (hc > 0) {
                taken.add(hc);
            }
        }
        Map<String, Object> changed = Obj.copy(s);
        Map<String, Object> spec = Obj.child(changed, "spec");
        String type = Objects.requireNonNullElse(Obj.str(changed, "spec", "type"), "ClusterIP");
        boolean lb = type.equals("LoadBalancer");
        boolean nodePorts = type.equals("NodePort") || (lb && !Boolean.FALSE.equals(spec.get("allocateLoadBalancerNodePorts")));
        if (spec.get("clusterIP") == null && !type.equals("ExternalName")) {
            spec.put("clusterIP", "10.96." + (Math.abs(String.valueOf(Obj.name(s)).hashCode()) % 250) + "." + (ip % 250 + 1));
        }
        for (Object o : Obj.list(spec.get("ports"))) {
            Map<String, Object> port = Obj.map(o);
            long had = Obj.num(port, 0, "nodePort");
            if (nodePorts && had <= 0) {
                port.put("nodePort", free(taken));
            } else if (nodePorts) {
                taken.add(had);
            } else if (!lb) {
                port.remove("nodePort");
            }
        }
        boolean local = lb && "Local".equals(spec.get("externalTrafficPolicy"));
        if (local && Obj.num(changed, 0, "spec", "healthCheckNodePort") <= 0) {
            spec.put("healthCheckNodePort", free(taken));
        } else if (!local) {
            spec.remove("healthCheckNodePort");
        }
        if (!lb) {
            spec.remove("loadBalancerClass");
        }
        return changed;
    }

    /** The main resource never writes a Service's status (a subresource): the update keeps what is stored. */
    private static Map<String, Object> withoutStatus(Map<String, Object> service) {
        Map<String, Object> copy = Obj.copy(service);
        copy.remove("status");
        return copy;
    }

    /** kube-proxy's health answer on a node (see {@link SimulatedKubernetesApis#nodeServes}). */
    boolean serves(String node, int port) {
        Map<String, Object> n = store.get("/api/v1/nodes/" + node);
        if (n == null || !Obj.isTrue(n, "Ready")) {
            return false;
        }
        if (port == KUBE_PROXY_HEALTH_PORT) {
            return true;
        }
        for (Map<String, Object> s : store.list(SERVICES)) {
            if (Obj.num(s, 0, "spec", "healthCheckNodePort") != port) {
                continue;
            }
            Map<String, Object> selector = Obj.map(Obj.at(s, "spec", "selector"));
            if (selector.isEmpty()) {
                return false;
            }
            for (Map<String, Object> pod : store.list("/api/v1/namespaces/" + Obj.namespace(s) + "/pods")) {
                Map<String, Object> labels = Obj.labels(pod);
                boolean selected = selector.entrySet().stream().allMatch(e -> Objects.equals(String.valueOf(e.getValue()),
                        String.valueOf(labels.get(e.getKey()))));
                if (selected && node.equals(Obj.str(pod, "spec", "nodeName")) && "Running".equals(Obj.str(pod, "status", "phase"))
                        && Obj.at(pod, "metadata", "deletionTimestamp") == null) {
                    return true;
                }
            }
            return false;
        }
        return false;
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
