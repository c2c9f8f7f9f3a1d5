package com.bettercompute.application.port;

import com.bettercompute.application.port.MarketClusterClient.ObjectRef;
import com.bettercompute.application.port.MarketClusterClient.PostedEvent;
import com.bettercompute.domain.loadbalancer.LoadBalancerService;
import com.bettercompute.domain.loadbalancer.Worker;

import java.util.List;

/**
 * The in-cluster side of load balancers, in any tenant cluster: its Services and nodes as a watch sees them,
 * the platform's finalizer on a Service, the address in its status, Events on it, and the mutating webhook that
 * gives class-less LoadBalancer Services the platform's class. It must not know whether the cluster is real or
 * simulated.
 *
 * <p>Failures are {@link ProviderException}s, as for {@link TenantClusterClient}; no library type and no token
 * travels with them. A Service that is gone (or is another one now: another uid) is a success for every write.
 */
public interface LoadBalancerClusterClient {

    /** The name of the mutating webhook configuration the platform keeps in every tenant cluster for Services. */
    String SERVICE_WEBHOOKS = "better-compute-load-balancers";

    /**
     * Starts watching the cluster's Services and Nodes. {@code onChange} runs (on the watch's own thread: it must
     * return quickly) after any of them changed.
     */
    ServiceWatch watch(ClusterConnection cluster, Runnable onChange);

    /** Adds the platform's finalizer to the Service; writes nothing when it is there. */
    void addFinalizer(ClusterConnection cluster, ObjectRef service);

    /** Takes the platform's finalizer off the Service; writes nothing when it is not there. */
    void removeFinalizer(ClusterConnection cluster, ObjectRef service);

    /**
     * Makes the Service's {@code status.loadBalancer.ingress} be {@code [{ip: address}]}, or empty when
     * {@code address} is null, through its status subresource; writes nothing when it holds.
     */
    void writeIngress(ClusterConnection cluster, ObjectRef service, String address);

    /** Posts an Event on the Service, as {@link MarketClusterClient#postEvent}: the same name twice shows it once. */
    void postEvent(ClusterConnection cluster, ObjectRef service, PostedEvent event);

    /**
     * Makes the cluster's mutating webhook configuration {@value #SERVICE_WEBHOOKS} call {@code webhooks.mutateUrl()}
     * for every Service created as, or changed to, a LoadBalancer without a class. Idempotent; an edit by anyone is
     * undone by the next call.
     */
    void ensureServiceWebhook(ClusterConnection cluster, AdmissionEndpoints.Webhooks webhooks);

    /** A running watch over one cluster; {@link #close()} stops it. */
    interface ServiceWatch extends AutoCloseable {
        /** Whether its caches were filled once: before that, a Service missing from {@link #services()} may exist. */
        boolean synced();

        /** The Services of type LoadBalancer and those carrying the platform's finalizer, as the caches hold them now. */
        List<LoadBalancerService> services();

        /** The cluster's nodes as backends, as the caches hold them now. */
        List<Worker> workers();

        @Override
        void close();
    }

    /** The reference an Event names a Service by. */
    static ObjectRef ref(LoadBalancerService s) {
        return new ObjectRef("v1", "Service", s.namespace(), s.name(), s.uid());
    }
}
