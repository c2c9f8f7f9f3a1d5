package com.bettercompute.adapters.k8s.simulator;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The nodes' {@code hostPath}s of a simulated cluster: a DaemonSet that mounts an NFS export on every node's host path
 * (an {@code nfs} volume and a {@code Bidirectional} {@code hostPath} mount, as a mount container has them) makes a
 * pod's write under that host path land in the export's real directory; without it the write stays on the node's own
 * disk. The DaemonSet is written here from Kubernetes' documented shapes, not from the product's code.
 */
class SimulatedHostPathsTest {
    private static SimulatedCluster.World world;
    @TempDir
    static Path exports;
    private SimulatedCluster cluster;

    @BeforeAll
    static void startWorld() {
        world = new SimulatedCluster.World(new SimulatedKubernetesApis.Settings(Duration.ZERO, Duration.ofSeconds(5)));
        world.apis.nfsExports((server, path) -> server.equals("10.99.7.12") && path.equals("/shared")
                ? Optional.of(exports.resolve("share")) : Optional.empty());
    }

    @AfterAll
    static void stopWorld() {
        world.close();
    }

    @BeforeEach
    void newCluster() throws Exception {
        Files.createDirectories(exports.resolve("share"));
        cluster = new SimulatedCluster(world);
        cluster.grant("gpu", 2, "r1");
    }

    @AfterEach
    void close() {
        cluster.close();
    }

    void mountEverywhere() {
        cluster.apply("""
                apiVersion: apps/v1
                kind: DaemonSet
                metadata: {name: mount, namespace: kube-system}
                spec:
                  selector: {matchLabels: {app: mount}}
                  template:
                    metadata: {labels: {app: mount}}
                    spec:
                      tolerations: [{operator: Exists}]
                      containers:
                        - name: mount
                          image: busybox
                          securityContext: {privileged: true}
                          volumeMounts:
                            - {name: share, mountPath: /share}
                            - {name: host, mountPath: /host/mnt/shared, mountPropagation: Bidirectional}
                      volumes:
                        - {name: share, nfs: {server: 10.99.7.12, path: /shared}}
                        - {name: host, hostPath: {path: /mnt/shared, type: DirectoryOrCreate}}
                """);
        cluster.advance(Duration.ofSeconds(1));
    }

    void writer(String name, String writes, boolean onGpu) {
        cluster.apply("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: default
                  annotations: {sim.better-compute.dev/writes: "%s"}
                spec:
                  %s
                  containers:
                    - name: train
                      image: trainer
                      volumeMounts: [{name: shared, mountPath: /data}]
                  volumes: [{name: shared, hostPath: {path: /mnt/shared}}]
                """.formatted(name, writes, onGpu
                ? "nodeSelector: {nationalcompute.com/request: r1}\n  tolerations: [{key: nationalcompute.com/gpu-worker, operator: Exists}]"
                : "nodeSelector: {cloud.google.com/gke-nodepool: " + SimulatedCluster.CPU_WORKER + "}"));
        cluster.advance(Duration.ofSeconds(1));
    }

    @Test
    void the_mount_runs_on_every_node_and_a_pods_write_under_the_host_path_lands_in_the_export() throws Exception {
        mountEverywhere();
        assertThat(cluster.client.pods().inNamespace("kube-system").withLabel("app", "mount").list().getItems())
                .as("the CPU worker and both tainted GPU nodes").hasSize(3)
                .allSatisfy(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Running"));

        writer("on-gpu", "/data/ckpt/step-1.bin=4096", true);
        writer("on-cpu", "/data/notes.txt=10, /data/../../etc/passwd=7", false);

        assertThat(exports.resolve("share/ckpt/step-1.bin")).hasSize(4096);
        assertThat(exports.resolve("share/notes.txt")).hasSize(10);
        try (var files = Files.walk(exports)) {
            assertThat(files.filter(Files::isRegularFile).map(f -> exports.relativize(f).toString()))
                    .as("nothing outside the export").containsExactlyInAnyOrder("share/ckpt/step-1.bin", "share/notes.txt");
        }
    }

    @Test
    void without_the_mount_a_write_stays_on_the_nodes_own_disk() throws Exception {
        writer("alone", "/data/lost.bin=4096", false);

        assertThat(cluster.client.pods().inNamespace("default").withName("alone").get().getStatus().getPhase()).isEqualTo("Running");
        assertThat(exports.resolve("share/lost.bin")).doesNotExist();
    }

    @Test
    void a_path_resolves_through_the_longest_host_path_volume_and_the_longest_mount_and_never_leaves_the_export() {
        Map<String, Object> pod = Map.of("spec", Map.of(
                "containers", List.of(Map.of("name", "c", "volumeMounts", List.of(
                        Map.of("name", "root", "mountPath", "/data"),
                        Map.of("name", "sub", "mountPath", "/data/deep", "subPath", "team")))),
                "volumes", List.of(
                        Map.of("name", "root", "hostPath", Map.of("path", "/var/lib")),
                        Map.of("name", "sub", "hostPath", Map.of("path", "/mnt/shared")))));
        Path share = exports.resolve("share");
        List<SimulatedHostPaths.Mount> mounts = List.of(new SimulatedHostPaths.Mount("/mnt", exports.resolve("other")),
                new SimulatedHostPaths.Mount("/mnt/shared", share));

        assertThat(SimulatedHostPaths.resolve(pod, "/data/deep/a.bin", mounts)).contains(share.resolve("team/a.bin"));
        assertThat(SimulatedHostPaths.resolve(pod, "/data/b.bin", mounts)).as("on /var/lib: the node's own disk").isEmpty();
        assertThat(SimulatedHostPaths.resolve(pod, "/elsewhere/c.bin", mounts)).as("the container's own file system").isEmpty();
        assertThat(SimulatedHostPaths.resolve(pod, SimulatedHostPaths.normal("/data/deep/../../../mnt/x"), mounts)).isEmpty();
    }
}
