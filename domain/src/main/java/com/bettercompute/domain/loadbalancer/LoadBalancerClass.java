package com.bettercompute.domain.loadbalancer;

/**
 * Who serves a LoadBalancer Service. GKE's own service controller acts on every LoadBalancer Service without
 * {@code spec.loadBalancerClass}; the platform serves only those of its own class, and the platform's mutating
 * webhook gives its class to every class-less LoadBalancer Service when it becomes one (created so, or its type
 * changed to it), so that exactly one controller ever acts on it. A Service carrying any other class is left to
 * whatever controller the tenant runs for that class.
 */
public final class LoadBalancerClass {
    /** The platform's load balancer class. */
    public static final String PLATFORM = "nationalcompute.com/load-balancer";
    /**
     * The platform's finalizer on a Service it serves, added before any provider call and removed only after its
     * address is released. Not Kubernetes' {@code service.kubernetes.io/load-balancer-cleanup}: the cloud
     * provider's service controller (GKE's) takes that one off any Service being deleted or no longer of type
     * LoadBalancer, whatever its class, after cleaning up its own load balancer (of which there is none).
     */
    public static final String CLEANUP_FINALIZER = "nationalcompute.com/load-balancer-cleanup";

    private LoadBalancerClass() {
    }

    /**
     * Whether admission gives the Service the platform's class: it is (now) a LoadBalancer Service without a
     * class, and it was not one already before this write ({@code oldType} null on a create). A Service that was
     * a class-less LoadBalancer before (made before the webhook was registered) stays with whoever served it: the
     * API server refuses to change a LoadBalancer Service's class anyway.
     */
    public static boolean claims(String oldType, String newType, String newClass) {
        return "LoadBalancer".equals(newType) && (newClass == null || newClass.isEmpty()) && !"LoadBalancer".equals(oldType);
    }
}
