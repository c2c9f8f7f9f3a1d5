package com.bettercompute.application.fakes;

import com.bettercompute.application.port.AdmissionEndpoints;
import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.LoadBalancerClusterClient;
import com.bettercompute.application.port.MarketClusterClient.ObjectRef;
import com.bettercompute.application.port.MarketClusterClient.PostedEvent;
import com.bettercompute.domain.loadbalancer.LoadBalancerClass;
import com.bettercompute.domain.loadbalancer.LoadBalancerService;
import com.bettercompute.domain.loadbalancer.ServicePort;
import com.bettercompute.domain.loadbalancer.Worker;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One tenant cluster's Services and nodes in memory, as {@link LoadBalancerClusterClient} sees them: a Service with
 * the platform's finalizer is kept when deleted (it only gets its deletion mark) until the finalizer goes.
 */
public final class InMemoryLoadBalancerClusterClient implements LoadBalancerClusterClient {
    private final Map<String, LoadBalancerService> services = new LinkedHashMap<>();
    private final List<Worker> workers = new ArrayList<>();
    /** Events posted, by name: posting a name again changes nothing. */
    private final Map<String, PostedEvent> events = new LinkedHashMap<>();
    private final List<String> writes = new ArrayList<>();
    private int uids;
    public AdmissionEndpoints.Webhooks webhooks;

    /** Applies a Service as {@code kubectl apply} would, with the platform's class and NodePorts the API server gives. */
    public synchronized LoadBalancerService apply(String name, List<ServicePort> ports, boolean local) {
        LoadBalancerService had = find(name);
        String uid = had != null ? had.uid() : "uid-" + (++uids);
        LoadBalancerService s = new LoadBalancerService("default", name, uid, true, LoadBalancerClass.PLATFORM, ports, true, local,
                local ? 32100 + uids : 0, false, had != null && had.finalizer(), had == null ? null : had.ingressIp());
        services.put(uid, s);
        return s;
    }

    /** Puts a Service as it is, for cases {@link #apply} does not make. */
    public synchronized void put(LoadBalancerService s) {
        services.put(s.uid(), s);
    }

    public synchronized LoadBalancerService find(String name) {
        return services.values().stream().filter(s -> s.name().equals(name)).findFirst().orElse(null);
    }

    /** {@code kubectl delete service}: gone at once without the finalizer, else marked. */
    public synchronized void delete(String name) {
        LoadBalancerService s = find(name);
        if (s == null) {
            return;
        }
        if (s.finalizer()) {
            services.put(s.uid(), copy(s, s.typeLoadBalancer(), s.loadBalancerClass(), true, true, s.ingressIp()));
        } else {
            services.remove(s.uid());
        }
    }

    /** Changes the Service's type to ClusterIP; the API server drops its class with it. */
    public synchronized void toClusterIp(String name) {
        LoadBalancerService s = find(name);
        services.put(s.uid(), copy(s, false, null, s.deleting(), s.finalizer(), s.ingressIp()));
    }

    public synchronized void workers(List<Worker> now) {
        workers.clear();
        workers.addAll(now);
    }

    public synchronized Map<String, PostedEvent> events() {
        return Map.copyOf(events);
    }

    /** The reasons of the Events posted on a Service, in order. */
    public synchronized List<String> reasons() {
        return events.values().stream().map(PostedEvent::reason).toList();
    }

    /** Every write made, as {@code what name}. */
    public synchronized List<String> writes() {
        return List.copyOf(writes);
    }

    @Override
    public synchronized ServiceWatch watch(ClusterConnection cluster, Runnable onChange) {
        return new ServiceWatch() {
            @Override
            public boolean synced() {
                return true;
            }

            @Override
            public List<LoadBalancerService> services() {
                synchronized (InMemoryLoadBalancerClusterClient.this) {
                    return List.copyOf(services.values());
                }
            }

            @Override
            public List<Worker> workers() {
                synchronized (InMemoryLoadBalancerClusterClient.this) {
                    return List.copyOf(workers);
                }
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public synchronized void addFinalizer(ClusterConnection cluster, ObjectRef service) {
        LoadBalancerService s = services.get(service.uid());
        writes.add("addFinalizer " + service.name());
        if (s != null && !s.finalizer()) {
            services.put(s.uid(), copy(s, s.typeLoadBalancer(), s.loadBalancerClass(), s.deleting(), true, s.ingressIp()));
        }
    }

    @Override
    public synchronized void removeFinalizer(ClusterConnection cluster, ObjectRef service) {
        LoadBalancerService s = services.get(service.uid());
        writes.add("removeFinalizer " + service.name());
        if (s == null) {
            return;
        }
        if (s.deleting()) {
            services.remove(s.uid());
        } else {
            services.put(s.uid(), copy(s, s.typeLoadBalancer(), s.loadBalancerClass(), false, false, s.ingressIp()));
        }
    }

    @Override
    public synchronized void writeIngress(ClusterConnection cluster, ObjectRef service, String address) {
        LoadBalancerService s = services.get(service.uid());
        writes.add("writeIngress " + service.name() + " " + address);
        if (s != null) {
            services.put(s.uid(), copy(s, s.typeLoadBalancer(), s.loadBalancerClass(), s.deleting(), s.finalizer(), address));
        }
    }

    @Override
    public synchronized void postEvent(ClusterConnection cluster, ObjectRef service, PostedEvent event) {
        events.putIfAbsent(event.eventName(), event);
    }

    @Override
    public synchronized void ensureServiceWebhook(ClusterConnection cluster, AdmissionEndpoints.Webhooks webhooks) {
        this.webhooks = webhooks;
    }

    private static LoadBalancerService copy(LoadBalancerService s, boolean lb, String cls, boolean deleting, boolean finalizer, String ip) {
        return new LoadBalancerService(s.namespace(), s.name(), s.uid(), lb, cls, s.ports(), s.allocateNodePorts(), s.localTraffic(),
                s.healthCheckNodePort(), deleting, finalizer, ip);
    }
}
