package com.bettercompute.adapters.gke.simulator;

import com.bettercompute.adapters.gke.simulator.SimulatorCore.SimCluster;
import com.bettercompute.adapters.gke.simulator.SimulatorCore.SimOperation;
import com.google.container.v1.Cluster;
import com.google.container.v1.ClusterUpdate;
import com.google.container.v1.NodeLabels;
import com.google.container.v1.NodePool;
import com.google.container.v1.NodePoolAutoscaling;
import com.google.container.v1.NodeTaints;
import com.google.container.v1.Operation;
import com.google.protobuf.MessageLite;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;

/**
 * The entries of the simulator's {@link StateLog}: GKE's own protobuf messages ({@code Cluster} with its
 * {@code node_pools}, {@code Operation}, {@code ClusterUpdate}…) with the little the simulator keeps
 * beside them, in a {@link DataOutputStream} frame whose first byte says what the entry is. A later
 * entry for the same cluster or operation replaces the earlier one.
 */
final class SavedState {
    private static final byte CLUSTER = 1;
    private static final byte CLUSTER_GONE = 2;
    private static final byte OPERATION = 3;
    private static final byte OPERATION_GONE = 4;
    private static final byte SEQUENCE = 5;

    private SavedState() {
    }

    /** Where replayed entries go. */
    interface Target {
        void cluster(SimCluster cluster);

        void clusterGone(String path);

        void operation(SimOperation operation);

        void operationGone(String id);

        void sequence(long sequence);
    }

    static byte[] cluster(SimCluster cluster) {
        return write(out -> {
            out.writeByte(CLUSTER);
            out.writeUTF(cluster.ref.project());
            out.writeUTF(cluster.ref.location());
            out.writeUTF(cluster.ref.cluster());
            Cluster.Builder all = cluster.cluster.clone().clearNodePools();
            cluster.pools.values().forEach(p -> all.addNodePools(p.build()));
            message(out, all.build());
        });
    }

    static byte[] clusterGone(String path) {
        return write(out -> {
            out.writeByte(CLUSTER_GONE);
            out.writeUTF(path);
        });
    }

    static byte[] operation(SimOperation operation) {
        return write(out -> {
            out.writeByte(OPERATION);
            message(out, operation.op.build());
            out.writeUTF(operation.project);
            out.writeUTF(operation.clusterPath);
            out.writeUTF(operation.clusterId);
            instant(out, operation.startedAt);
            instant(out, operation.doneAt);
            out.writeBoolean(operation.failure != null);
            if (operation.failure != null) {
                out.writeUTF(operation.failure);
            }
            effect(out, operation.effect);
        });
    }

    static byte[] operationGone(String id) {
        return write(out -> {
            out.writeByte(OPERATION_GONE);
            out.writeUTF(id);
        });
    }

    static byte[] sequence(long sequence) {
        return write(out -> {
            out.writeByte(SEQUENCE);
            out.writeLong(sequence);
        });
    }

    static void replay(byte[] entry, Target target) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(entry));
            byte kind = in.readByte();
            switch (kind) {
                case CLUSTER -> {
                    Ref ref = new Ref(in.readUTF(), in.readUTF(), in.readUTF(), null, null);
                    Cluster saved = Cluster.parseFrom(bytes(in));
                    SimCluster cluster = new SimCluster(ref, saved.toBuilder().clearNodePools());
                    saved.getNodePoolsList().forEach(p -> cluster.pools.put(p.getName(), p.toBuilder()));
                    target.cluster(cluster);
                }
                case CLUSTER_GONE -> target.clusterGone(in.readUTF());
                case OPERATION -> {
                    Operation.Builder op = Operation.parseFrom(bytes(in)).toBuilder();
                    String project = in.readUTF();
                    String clusterPath = in.readUTF();
                    String clusterId = in.readUTF();
                    Instant startedAt = instant(in);
                    Instant doneAt = instant(in);
                    String failure = in.readBoolean() ? in.readUTF() : null;
                    target.operation(new SimOperation(op, project, clusterPath, clusterId, startedAt, doneAt, failure, effect(in)));
                }
                case OPERATION_GONE -> target.operationGone(in.readUTF());
                case SEQUENCE -> target.sequence(in.readLong());
                default -> throw new IOException("unknown entry kind " + kind);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("a GKE simulator state entry cannot be read: " + e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------- effects

    private static final byte NOTHING = 0;
    private static final byte CREATE_CLUSTER = 1;
    private static final byte DELETE_CLUSTER = 2;
    private static final byte CHANGE_CLUSTER = 3;
    private static final byte CREATE_POOL = 4;
    private static final byte DELETE_POOL = 5;
    private static final byte RESIZE_POOL = 6;
    private static final byte AUTOSCALE_POOL = 7;
    private static final byte RELABEL_POOL = 8;
    private static final byte UPGRADE_POOL = 9;

    private static void effect(DataOutputStream out, Effect effect) throws IOException {
        if (effect instanceof Effect.Nothing) {
            out.writeByte(NOTHING);
        } else if (effect instanceof Effect.CreateCluster) {
            out.writeByte(CREATE_CLUSTER);
        } else if (effect instanceof Effect.DeleteCluster d) {
            out.writeByte(DELETE_CLUSTER);
            out.writeInt(d.before().getNumber());
        } else if (effect instanceof Effect.ChangeCluster c) {
            out.writeByte(CHANGE_CLUSTER);
            message(out, c.change());
        } else if (effect instanceof Effect.CreatePool c) {
            out.writeByte(CREATE_POOL);
            out.writeUTF(c.pool());
        } else if (effect instanceof Effect.DeletePool d) {
            out.writeByte(DELETE_POOL);
            out.writeUTF(d.pool());
            out.writeInt(d.before().getNumber());
        } else if (effect instanceof Effect.ResizePool r) {
            out.writeByte(RESIZE_POOL);
            out.writeUTF(r.pool());
            out.writeInt(r.nodeCount());
        } else if (effect instanceof Effect.AutoscalePool a) {
            out.writeByte(AUTOSCALE_POOL);
            out.writeUTF(a.pool());
            message(out, a.autoscaling());
        } else if (effect instanceof Effect.RelabelPool l) {
            out.writeByte(RELABEL_POOL);
            out.writeUTF(l.pool());
            optional(out, l.labels());
            optional(out, l.taints());
        } else {
            Effect.UpgradePool u = (Effect.UpgradePool) effect;
            out.writeByte(UPGRADE_POOL);
            out.writeUTF(u.pool());
            out.writeUTF(u.version());
        }
    }

    private static Effect effect(DataInputStream in) throws IOException {
        byte kind = in.readByte();
        return switch (kind) {
            case NOTHING -> new Effect.Nothing();
            case CREATE_CLUSTER -> new Effect.CreateCluster();
            case DELETE_CLUSTER -> new Effect.DeleteCluster(Cluster.Status.forNumber(in.readInt()));
            case CHANGE_CLUSTER -> new Effect.ChangeCluster(ClusterUpdate.parseFrom(bytes(in)));
            case CREATE_POOL -> new Effect.CreatePool(in.readUTF());
            case DELETE_POOL -> new Effect.DeletePool(in.readUTF(), NodePool.Status.forNumber(in.readInt()));
            case RESIZE_POOL -> new Effect.ResizePool(in.readUTF(), in.readInt());
            case AUTOSCALE_POOL -> new Effect.AutoscalePool(in.readUTF(), NodePoolAutoscaling.parseFrom(bytes(in)));
            case RELABEL_POOL -> {
                String pool = in.readUTF();
                byte[] labels = in.readBoolean() ? bytes(in) : null;
                byte[] taints = in.readBoolean() ? bytes(in) : null;
                yield new Effect.RelabelPool(pool, labels == null ? null : NodeLabels.parseFrom(labels),
                        taints == null ? null : NodeTaints.parseFrom(taints));
            }
            case UPGRADE_POOL -> new Effect.UpgradePool(in.readUTF(), in.readUTF());
            default -> throw new IOException("unknown effect kind " + kind);
        };
    }

    // ---------------------------------------------------------------- plumbing

    private interface Writing {
        void to(DataOutputStream out) throws IOException;
    }

    private static byte[] write(Writing writing) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            writing.to(new DataOutputStream(bytes));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static void message(DataOutputStream out, MessageLite message) throws IOException {
        byte[] bytes = message.toByteArray();
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static void optional(DataOutputStream out, MessageLite message) throws IOException {
        out.writeBoolean(message != null);
        if (message != null) {
            message(out, message);
        }
    }

    private static byte[] bytes(DataInputStream in) throws IOException {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        return bytes;
    }

    private static void instant(DataOutputStream out, Instant instant) throws IOException {
        out.writeLong(instant.getEpochSecond());
        out.writeInt(instant.getNano());
    }

    private static Instant instant(DataInputStream in) throws IOException {
        return Instant.ofEpochSecond(in.readLong(), in.readInt());
    }
}
