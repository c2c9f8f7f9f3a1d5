package com.bettercompute.adapters.gke.simulator;

import com.google.cloud.compute.v1.BackendService;
import com.google.cloud.compute.v1.Backend;
import com.google.cloud.compute.v1.ForwardingRule;
import com.google.cloud.compute.v1.HealthCheck;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Each forwarding rule of the simulator really listens: a TCP socket on its address (a loopback address, which
 * Linux lets any process bind) and on each of its ports. A connection goes to one healthy instance of the rule's
 * backend service (the members of its instance groups, checked by its health check), taking turns, and that instance — played here, as the simulator has no machines — answers one
 * line, {@code node=<instance name> client=<address:port>}, naming the client address it saw (nothing translates
 * it on the way: no source NAT), then closes. With no healthy instance the connection is closed at once, as a
 * load balancer with no healthy backend drops it. A port that cannot be bound (taken, or below 1024 without the
 * right to) is logged and left out; the rule still exists.
 */
final class ForwardingListeners {
    private static final Logger LOG = LoggerFactory.getLogger(ForwardingListeners.class);
    /** The most ports of one rule's port range listened on. */
    static final int MAX_PORTS = 64;

    /** What a rule forwards to now, looked up at each connection. */
    interface Targets {
        ForwardingRule rule(String path);

        BackendService backendService(String path);

        HealthCheck check(String path);

        List<String> instances(String group);
    }

    private final Map<String, List<ServerSocket>> open = new ConcurrentHashMap<>();
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "compute-simulator-forwarding");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLong turns = new AtomicLong();
    private volatile Targets targets;
    private volatile BackendHealth health = BackendHealth.ALL_HEALTHY;

    void targets(Targets targets) {
        this.targets = targets;
    }

    void health(BackendHealth health) {
        this.health = health;
    }

    /** Starts listening for the rule (again: what it listened on before is closed first). */
    void open(ForwardingRule rule) {
        close(rule);
        List<ServerSocket> sockets = new ArrayList<>();
        for (int port : ports(rule)) {
            try {
                ServerSocket socket = new ServerSocket();
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(InetAddress.getByName(rule.getIPAddress()), port), 64);
                sockets.add(socket);
                String selfLink = rule.getSelfLink();
                threads.execute(() -> accept(socket, selfLink));
            } catch (IOException e) {
                LOG.warn("gke simulator: forwarding rule {} cannot listen on {}:{}: {}", rule.getName(), rule.getIPAddress(), port,
                        e.getMessage());
            }
        }
        open.put(rule.getSelfLink(), sockets);
    }

    void close(ForwardingRule rule) {
        List<ServerSocket> sockets = open.remove(rule.getSelfLink());
        if (sockets != null) {
            sockets.forEach(ForwardingListeners::closeQuietly);
        }
    }

    void closeAll() {
        open.values().forEach(list -> list.forEach(ForwardingListeners::closeQuietly));
        open.clear();
        threads.shutdownNow();
    }

    /** The ports a rule serves: its {@code ports}, else its {@code portRange} (at most {@link #MAX_PORTS} of it). */
    static List<Integer> ports(ForwardingRule rule) {
        List<Integer> out = new ArrayList<>();
        if (rule.getPortsCount() > 0) {
            rule.getPortsList().forEach(p -> out.add(Integer.parseInt(p)));
        } else if (rule.hasPortRange() && !rule.getPortRange().isEmpty()) {
            String[] range = rule.getPortRange().split("-");
            int from = Integer.parseInt(range[0]);
            int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
            for (int p = from; p <= to && out.size() < MAX_PORTS; p++) {
                out.add(p);
            }
        }
        return out;
    }

    private void accept(ServerSocket socket, String rulePath) {
        while (!socket.isClosed()) {
            try {
                Socket client = socket.accept();
                threads.execute(() -> answer(client, rulePath));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void answer(Socket client, String rulePath) {
        try (client) {
            String instance = chooseBackend(rulePath);
            if (instance == null) {
                return;
            }
            InetSocketAddress from = (InetSocketAddress) client.getRemoteSocketAddress();
            String line = "node=" + instance.substring(instance.lastIndexOf('/') + 1) + " client="
                    + from.getAddress().getHostAddress() + ":" + from.getPort() + "\n";
            OutputStream out = client.getOutputStream();
            out.write(line.getBytes(StandardCharsets.US_ASCII));
            out.flush();
        } catch (IOException e) {
            LOG.debug("gke simulator: a forwarded connection ended early: {}", e.getMessage());
        }
    }

    /** One healthy instance behind the rule, taking turns among them; null when none is healthy. */
    String chooseBackend(String rulePath) {
        Targets t = targets;
        ForwardingRule rule = t == null ? null : t.rule(rulePath);
        BackendService service = rule == null || !rule.hasBackendService() ? null : t.backendService(rule.getBackendService());
        if (service == null) {
            return null;
        }
        HealthCheck check = service.getHealthChecksCount() == 0 ? null : t.check(service.getHealthChecks(0));
        List<String> healthy = new ArrayList<>();
        for (Backend backend : service.getBackendsList()) {
            for (String instance : t.instances(backend.getGroup())) {
                if (check == null || healthy(instance, check)) {
                    healthy.add(instance);
                }
            }
        }
        return healthy.isEmpty() ? null : healthy.get((int) Math.floorMod(turns.getAndIncrement(), (long) healthy.size()));
    }

    private boolean healthy(String instance, HealthCheck check) {
        // projects/P/zones/Z/instances/N
        String[] p = instance.split("/");
        if (p.length < 6 || !check.hasHttpHealthCheck()) {
            return p.length >= 6;
        }
        return health.healthy(p[1], p[3], p[5], check.getHttpHealthCheck().getPort(), check.getHttpHealthCheck().getRequestPath());
    }

    private static void closeQuietly(ServerSocket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
