package com.bettercompute.domain.loadbalancer;

/**
 * The HTTP check the provider makes on every backend node: kube-proxy answers it on each node. With
 * {@code externalTrafficPolicy: Local}, on the Service's {@code healthCheckNodePort}, where only nodes with a
 * serving pod answer 200; otherwise on kube-proxy's own health port, where every working node does.
 */
public record HealthCheck(int port, String path) {
    /** kube-proxy's health port ({@code --healthz-bind-address}'s default). */
    public static final int KUBE_PROXY_PORT = 10256;
    public static final String PATH = "/healthz";

    /** The check for this Service. */
    public static HealthCheck of(LoadBalancerService service) {
        if (service.localTraffic() && service.healthCheckNodePort() > 0) {
            return new HealthCheck(service.healthCheckNodePort(), PATH);
        }
        return new HealthCheck(KUBE_PROXY_PORT, PATH);
    }
}
