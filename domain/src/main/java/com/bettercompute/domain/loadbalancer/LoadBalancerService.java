package com.bettercompute.domain.loadbalancer;

import java.util.List;

/**
 * A Service as the load balancer rules read it.
 *
 * @param namespace            its namespace
 * @param name                 its name
 * @param uid                  its uid: a Service deleted and made again under the same name is another Service
 * @param typeLoadBalancer     {@code spec.type} is {@code LoadBalancer}
 * @param loadBalancerClass    {@code spec.loadBalancerClass}, null when unset
 * @param ports                {@code spec.ports}
 * @param allocateNodePorts    {@code spec.allocateLoadBalancerNodePorts} (true when unset, as Kubernetes defaults it)
 * @param localTraffic         {@code spec.externalTrafficPolicy} is {@code Local}
 * @param healthCheckNodePort  {@code spec.healthCheckNodePort}, 0 when none
 * @param deleting             it carries a deletion timestamp
 * @param finalizer            it carries {@link LoadBalancerClass#CLEANUP_FINALIZER}
 * @param ingressIp            {@code status.loadBalancer.ingress[0].ip}, null when none
 */
public record LoadBalancerService(String namespace, String name, String uid, boolean typeLoadBalancer, String loadBalancerClass,
                                  List<ServicePort> ports, boolean allocateNodePorts, boolean localTraffic,
                                  int healthCheckNodePort, boolean deleting, boolean finalizer, String ingressIp) {
    public LoadBalancerService {
        ports = List.copyOf(ports);
    }

    /** {@code namespace/name}, as kubectl names it. */
    public String key() {
        return namespace + "/" + name;
    }

    /** Whether the platform serves it: a LoadBalancer Service of the platform's class. */
    public boolean ours() {
        return typeLoadBalancer && LoadBalancerClass.PLATFORM.equals(loadBalancerClass);
    }

    /** Whether it still wants a load balancer from the platform: ours and not being deleted. */
    public boolean wanted() {
        return ours() && !deleting;
    }
}
