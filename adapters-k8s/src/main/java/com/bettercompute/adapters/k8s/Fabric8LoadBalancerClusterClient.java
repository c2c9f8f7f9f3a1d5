package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.AdmissionEndpoints;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.LoadBalancerClusterClient;
import com.bettercompute.application.port.MarketClusterClient.ObjectRef;
import com.bettercompute.application.port.MarketClusterClient.PostedEvent;
import com.bettercompute.domain.loadbalancer.LoadBalancerClass;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.LoadBalancerIngressBuilder;
import io.fabric8.kubernetes.api.model.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.LoadBalancerStatusBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceStatus;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * {@link LoadBalancerClusterClient} on fabric8: informers on Services and Nodes ({@link Fabric8ServiceWatch}), the
 * platform's finalizer and the ingress status written with the resource version read (a concurrent write makes it
 * fail, and the next pass writes again), and the mutating webhook configuration {@value #SERVICE_WEBHOOKS}. No
 * fabric8 type leaves this class.
 */
public final class Fabric8LoadBalancerClusterClient implements LoadBalancerClusterClient, AutoCloseable {
    /** Who posts the load balancers' Events, as the Events' source shows it. */
    static final String EVENT_SOURCE = "nationalcompute-load-balancer";
    static final String SERVICES_WEBHOOK = "services.admission.nationalcompute.com";

    private final ClusterApis apis;
    private final long resyncMillis;

    public Fabric8LoadBalancerClusterClient(int timeoutMillis, long resyncMillis) {
        this.apis = new ClusterApis(timeoutMillis);
        this.resyncMillis = resyncMillis;
    }

    @Override
    public ServiceWatch watch(ClusterConnection cluster, Runnable onChange) {
        return apis.watch(cluster, "watch the cluster's Services and nodes", lease -> new Fabric8ServiceWatch(lease, onChange, resyncMillis));
    }

    @Override
    public void addFinalizer(ClusterConnection cluster, ObjectRef service) {
        edit(cluster, service, "add the load balancer finalizer to", s -> {
            List<String> finalizers = new ArrayList<>(s.getMetadata().getFinalizers() == null ? List.of() : s.getMetadata().getFinalizers());
            if (finalizers.contains(LoadBalancerClass.CLEANUP_FINALIZER) || s.getMetadata().getDeletionTimestamp() != null) {
                return null;
            }
            finalizers.add(LoadBalancerClass.CLEANUP_FINALIZER);
            s.getMetadata().setFinalizers(finalizers);
            return s;
        }, false);
    }

    @Override
    public void removeFinalizer(ClusterConnection cluster, ObjectRef service) {
        edit(cluster, service, "take the load balancer finalizer off", s -> {
            List<String> finalizers = new ArrayList<>(s.getMetadata().getFinalizers() == null ? List.of() : s.getMetadata().getFinalizers());
            if (!finalizers.remove(LoadBalancerClass.CLEANUP_FINALIZER)) {
                return null;
            }
            s.getMetadata().setFinalizers(finalizers);
            return s;
        }, false);
    }

    @Override
    public void writeIngress(ClusterConnection cluster, ObjectRef service, String address) {
        edit(cluster, service, "write the load balancer status of", s -> {
            LoadBalancerStatus wanted = address == null ? new LoadBalancerStatus()
                    : new LoadBalancerStatusBuilder().withIngress(new LoadBalancerIngressBuilder().withIp(address).withIpMode("VIP").build())
                    .build();
            ServiceStatus status = s.getStatus() == null ? new ServiceStatus() : s.getStatus();
            if (ingressIps(status.getLoadBalancer()).equals(ingressIps(wanted))) {
                return null;
            }
            status.setLoadBalancer(wanted);
            s.setStatus(status);
            return s;
        }, true);
    }

    private static List<String> ingressIps(LoadBalancerStatus status) {
        return status == null || status.getIngress() == null ? List.of()
                : status.getIngress().stream().map(i -> String.valueOf(i.getIp())).toList();
    }

    /**
     * Reads the Service, lets {@code change} edit it (null: nothing to write) and writes it back at the version read, its
     * status through the status subresource when {@code status}. A Service that is gone, or is another one now, is left.
     */
    private void edit(ClusterConnection cluster, ObjectRef ref, String what, UnaryOperator<Service> change, boolean status) {
        apis.call(cluster, what + " Service " + ref.namespace() + "/" + ref.name(), client -> {
            var services = client.services().inNamespace(ref.namespace());
            Service s = services.withName(ref.name()).get();
            if (s == null || (ref.uid() != null && !ref.uid().equals(s.getMetadata().getUid()))) {
                return null;
            }
            Service changed = change.apply(s);
            if (changed != null) {
                if (status) {
                    services.resource(changed).updateStatus();
                } else {
                    services.resource(changed).update();
                }
            }
            return null;
        });
    }

    @Override
    public void postEvent(ClusterConnection cluster, ObjectRef service, PostedEvent event) {
        apis.call(cluster, "post an Event on Service " + service.namespace() + "/" + service.name(), client -> {
            Fabric8MarketClusterClient.post(client, service, event, EVENT_SOURCE);
            return null;
        });
    }

    @Override
    public void ensureServiceWebhook(ClusterConnection cluster, AdmissionEndpoints.Webhooks webhooks) {
        apis.call(cluster, "register the platform's Service webhook", client -> {
            Fabric8MarketClusterClient.ensure(client, serviceWebhooks(webhooks));
            return null;
        });
    }

    /**
     * The mutating webhook that gives the platform's class to a Service made a class-less LoadBalancer (created so,
     * or its type changed to it): on GKE, the matchConditions keep every other Service write off the platform, and
     * {@code Fail} keeps a class-less one from reaching GKE's own service controller while the platform cannot
     * answer (it is refused, and the tenant's retry passes).
     */
    static GenericKubernetesResource serviceWebhooks(AdmissionEndpoints.Webhooks webhooks) {
        Map<String, Object> webhook = PlatformObjectManifests.webhook(SERVICES_WEBHOOK, webhooks.mutateUrl(), webhooks.caBundlePem(),
                List.of(PlatformObjectManifests.rule("", List.of("v1"), List.of("services"), List.of("CREATE", "UPDATE"),
                "Namespaced")));
        webhook.put("matchConditions", List.of(Map.of("name", "class-less-load-balancer", "expression",
                "object.spec.type == 'LoadBalancer' && !has(object.spec.loadBalancerClass)"
                        + " && (oldObject == null || oldObject.spec.type != 'LoadBalancer')")));
        webhook.put("reinvocationPolicy", "Never");
        return PlatformObjectManifests.webhookConfiguration("MutatingWebhookConfiguration", SERVICE_WEBHOOKS, List.of(webhook));
    }

    @Override
    public void close() {
        apis.close();
    }
}
