package com.bettercompute.domain.loadbalancer;

/**
 * One port of a Service as its spec declares it.
 *
 * @param name     the port's name, empty when it has none
 * @param protocol {@code TCP}, {@code UDP} or {@code SCTP}, as Kubernetes writes it
 * @param port     the port the load balancer serves
 * @param nodePort the NodePort the API server allocated, 0 when none
 */
public record ServicePort(String name, String protocol, int port, int nodePort) {
    public ServicePort {
        name = name == null ? "" : name;
        protocol = protocol == null || protocol.isEmpty() ? "TCP" : protocol;
    }

    public boolean tcp() {
        return "TCP".equals(protocol);
    }

    /** How an Event names it: {@code 53/UDP}, or {@code dns (53/UDP)} when it has a name. */
    public String label() {
        String bare = port + "/" + protocol;
        return name.isEmpty() ? bare : name + " (" + bare + ")";
    }
}
