package com.bettercompute.adapters.k8s.simulator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What the nodes' file systems do in one simulated cluster, as far as {@code hostPath} volumes go.
 *
 * <p>A mount on a node: a Running pod on it with an {@code nfs} volume and a {@code hostPath} volume that one of its
 * containers mounts with {@code mountPropagation: Bidirectional} publishes the export at that host path, as the
 * platform's mount container does by bind-mounting the first onto the second (a container the simulator does not run:
 * the two volumes stand for what it does). The export's directory is what {@link NfsExports} says; while no such pod
 * runs on a node, its host path is the node's own disk, which the simulator does not keep.
 *
 * <p>A write by a pod: a Running pod annotated {@value #WRITES} ({@code <path in the container>=<bytes>}, several
 * separated by commas) writes that many bytes there once, through the {@code hostPath} volume mounted at that path and
 * the node's mounts, into the export's real directory — what a workload writing a checkpoint to the shared volume does.
 */
final class SimulatedHostPaths {
    private static final Logger LOG = LoggerFactory.getLogger(SimulatedHostPaths.class);
    static final String WRITES = "sim.better-compute.dev/writes";
    /** A write asks at most this much: the simulator's disk is the machine's. */
    static final long MAX_WRITE_BYTES = 64L << 20;

    /** An export published at a host path of a node. */
    record Mount(String hostPath, Path directory) {}

    private final ClusterStore store;
    private final Supplier<NfsExports> exports;
    /** The pods whose writes are done (by uid): each writes once. */
    private final Set<String> written = new HashSet<>();

    SimulatedHostPaths(ClusterStore store, Supplier<NfsExports> exports) {
        this.store = store;
        this.exports = exports;
    }

    void reconcile() {
        List<Map<String, Object>> pods = store.list("/api/v1/pods");
        Map<String, List<Mount>> mounts = mounts(pods);
        Set<String> live = new HashSet<>();
        for (Map<String, Object> pod : pods) {
            String uid = SimulatedKueue.uid(pod);
            live.add(uid);
            Object writes = Obj.annotations(pod).get(WRITES);
            if (writes == null || !running(pod) || written.contains(uid)) {
                continue;
            }
            written.add(uid);
            for (String write : writes.toString().split(",")) {
                write(pod, write.trim(), mounts.getOrDefault(Obj.str(pod, "spec", "nodeName"), List.of()));
            }
        }
        written.retainAll(live);
    }

    /** The exports each node has mounted, by node name. */
    Map<String, List<Mount>> mounts(List<Map<String, Object>> pods) {
        Map<String, List<Mount>> out = new HashMap<>();
        for (Map<String, Object> pod : pods) {
            String node = Obj.str(pod, "spec", "nodeName");
            if (node == null || !running(pod)) {
                continue;
            }
            Map<String, Map<String, Object>> volumes = volumes(pod);
            Map<String, Object> nfs = volumes.values().stream().map(v -> Obj.map(v.get("nfs"))).filter(m -> !m.isEmpty())
                    .findFirst().orElse(null);
            if (nfs == null) {
                continue;
            }
            for (Object c : Obj.list(Obj.at(pod, "spec", "containers"))) {
                for (Object m : Obj.list(Obj.map(c).get("volumeMounts"))) {
                    Map<String, Object> mount = Obj.map(m);
                    Map<String, Object> hostPath = Obj.map(Obj.map(volumes.get(String.valueOf(mount.get("name")))).get("hostPath"));
                    if (!hostPath.isEmpty() && "Bidirectional".equals(mount.get("mountPropagation"))) {
                        Optional<Path> directory = exports.get().directory(String.valueOf(nfs.get("server")), String.valueOf(nfs.get("path")));
                        directory.ifPresent(d -> out.computeIfAbsent(node, k -> new ArrayList<>())
                                .add(new Mount(normal(String.valueOf(hostPath.get("path"))), d)));
                    }
                }
            }
        }
        return out;
    }

    private void write(Map<String, Object> pod, String write, List<Mount> mounts) {
        int eq = write.lastIndexOf('=');
        long bytes;
        try {
            bytes = eq < 0 ? -1 : Long.parseLong(write.substring(eq + 1).trim());
        } catch (NumberFormatException e) {
            bytes = -1;
        }
        if (bytes < 0 || bytes > MAX_WRITE_BYTES) {
            LOG.warn("simulated kubelet: pod {}/{}: {} \"{}\" is not <path>=<bytes up to {}>", Obj.namespace(pod), Obj.name(pod), WRITES,
                    write, MAX_WRITE_BYTES);
            return;
        }
        Optional<Path> file = resolve(pod, normal(write.substring(0, eq).trim()), mounts);
        if (file.isEmpty()) {
            return;
        }
        try {
            Files.createDirectories(file.get().getParent());
            Files.write(file.get(), new byte[(int) bytes]);
        } catch (IOException e) {
            LOG.warn("simulated kubelet: pod {}/{} could not write {}: {}", Obj.namespace(pod), Obj.name(pod), file.get(), e.getMessage());
        }
    }

    /**
     * Where a path in the pod's containers is on the node: through the {@code hostPath} volume mounted at the longest
     * prefix of it, then the node's mount at the longest prefix of that host path. Empty when it is not on a mounted
     * export (a container's own file system, or the node's own disk) or would leave the export's directory.
     */
    static Optional<Path> resolve(Map<String, Object> pod, String path, List<Mount> mounts) {
        Map<String, Map<String, Object>> volumes = volumes(pod);
        String hostPath = null;
        int best = -1;
        for (Object c : Obj.list(Obj.at(pod, "spec", "containers"))) {
            for (Object m : Obj.list(Obj.map(c).get("volumeMounts"))) {
                Map<String, Object> mount = Obj.map(m);
                String at = normal(String.valueOf(mount.get("mountPath")));
                Map<String, Object> host = Obj.map(Obj.map(volumes.get(String.valueOf(mount.get("name")))).get("hostPath"));
                if (!host.isEmpty() && under(path, at) && at.length() > best) {
                    best = at.length();
                    String sub = mount.get("subPath") == null ? "" : "/" + mount.get("subPath");
                    hostPath = normal(host.get("path") + sub + path.substring(at.length()));
                }
            }
        }
        if (hostPath == null) {
            return Optional.empty();
        }
        Mount chosen = null;
        for (Mount m : mounts) {
            if (under(hostPath, m.hostPath()) && (chosen == null || m.hostPath().length() > chosen.hostPath().length())) {
                chosen = m;
            }
        }
        if (chosen == null) {
            return Optional.empty();
        }
        String rest = hostPath.substring(chosen.hostPath().length());
        Path file = chosen.directory().resolve(rest.startsWith("/") ? rest.substring(1) : rest).normalize();
        return file.startsWith(chosen.directory()) && !file.equals(chosen.directory()) ? Optional.of(file) : Optional.empty();
    }

    private static Map<String, Map<String, Object>> volumes(Map<String, Object> pod) {
        Map<String, Map<String, Object>> out = new HashMap<>();
        for (Object v : Obj.list(Obj.at(pod, "spec", "volumes"))) {
            out.put(String.valueOf(Obj.map(v).get("name")), Obj.map(v));
        }
        return out;
    }

    private static boolean running(Map<String, Object> pod) {
        return "Running".equals(Obj.str(pod, "status", "phase")) && Obj.at(pod, "metadata", "deletionTimestamp") == null;
    }

    /** Whether {@code path} is {@code dir} or below it. */
    static boolean under(String path, String dir) {
        return path.equals(dir) || path.startsWith(dir.endsWith("/") ? dir : dir + "/");
    }

    /** A path without a trailing slash, {@code .} and {@code ..} resolved, {@code /} for the root. */
    static String normal(String path) {
        String n = java.nio.file.Path.of("/").resolve(path).normalize().toString().replace('\\', '/');
        return n.isEmpty() ? "/" : n;
    }
}
