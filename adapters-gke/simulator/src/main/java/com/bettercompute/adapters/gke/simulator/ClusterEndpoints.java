package com.bettercompute.adapters.gke.simulator;

/**
 * Where a simulated cluster's Kubernetes API is, once the cluster runs. Without one, the simulator reports
 * a made-up public IP and a fixed CA that nothing answers at (as before); with one (bootstrap plugs in the
 * simulated Kubernetes APIs of {@code adapters-k8s}), {@code endpoint} and the CA point at a real API.
 */
@FunctionalInterface
public interface ClusterEndpoints {

    /**
     * @param address the endpoint as GKE reports it: no scheme, {@code HOST[:PORT][/PATH]}
     * @param caCertificateBase64 the CA, base64 of PEM, as GKE reports {@code masterAuth.clusterCaCertificate}
     */
    record Endpoint(String address, String caCertificateBase64) {}

    /** Called under the simulator's lock whenever a running cluster is read: keep it cheap and never call back. */
    Endpoint endpointFor(String project, String location, String cluster);

    /**
     * The cluster is gone (deleted, or deleted behind the back): its API may forget it, so that a new
     * cluster of the same name starts empty. Called under the simulator's lock; never call back.
     */
    default void gone(String project, String location, String cluster) {
    }
}
