package com.bettercompute.adapters.http;

import com.bettercompute.application.cluster.Cidrs;
import com.bettercompute.application.cluster.ClusterRef;
import com.bettercompute.application.cluster.CreateClusterCommand;
import com.bettercompute.application.cluster.CredentialRole;
import com.bettercompute.application.cluster.CredentialsCommand;
import com.bettercompute.application.cluster.ListClustersQuery;
import com.bettercompute.application.cluster.Patterns;
import com.bettercompute.application.cluster.UpdateClusterCommand;
import com.bettercompute.application.cluster.VersionsQuery;
import com.bettercompute.domain.cluster.ClusterMode;
import com.bettercompute.domain.cluster.NodePoolSpec;
import com.bettercompute.domain.cluster.ReleaseChannel;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The bodies of {@code /api/compute/kubernetesClusters/<method>} as Jackson binds them, and their checks
 * against the clusters spec's input tables: each record's {@code command} checks its fields in the table's
 * order, collecting every problem, and returns the typed command of its use case.
 */
final class ClusterRequests {
    private ClusterRequests() {}

    record CreateCluster(@Required String tenantId, String projectId, @Required String poolId, @Required String name,
                         @Required String mode, @Required String location, String releaseChannel, String version,
                         String networkId, List<String> authorizedNetworks, Boolean privateNodes, String description,
                         List<NodePoolRequests.NodePool> nodePools, @Required String idempotencyKey)
            implements Request<CreateClusterCommand> {
        @Override
        public CreateClusterCommand command(Fields in) {
            String tenantId = in.string("tenantId", this.tenantId, true, 128, Patterns.TENANT_ID);
            String projectId = in.string("projectId", this.projectId, false, 56, Patterns.PROJECT_ID);
            String poolId = in.string("poolId", this.poolId, true, 57, Patterns.POOL_ID);
            String name = in.string("name", this.name, true, 40, Patterns.NAME);
            ClusterMode mode = in.oneOf("mode", this.mode, true, CreateClusterCommand.MODES, null);
            String location = in.string("location", this.location, true, 40, Patterns.LOCATION);
            ReleaseChannel channel = in.oneOf("releaseChannel", releaseChannel, false, CreateClusterCommand.CHANNELS, ReleaseChannel.REGULAR);
            String version = in.string("version", this.version, false, 64, Patterns.VERSION);
            String networkId = in.string("networkId", this.networkId, false, 56, Patterns.NETWORK_ID);
            List<String> networks = checkNetworks(in, authorizedNetworks);
            Boolean privateNodes = in.bool("privateNodes", this.privateNodes, false);
            String description = in.string("description", this.description, false, 256, null);
            List<NodePoolSpec> pools = new ArrayList<>();
            List<Fields> poolFields = in.objects("nodePools", nodePools, 10);
            if (poolFields != null) {
                Set<String> names = new HashSet<>();
                for (int i = 0; i < poolFields.size(); i++) {
                    NodePoolRequests.NodePool pool = nodePools.get(i);
                    NodePoolSpec spec = pool.spec(poolFields.get(i), pool);
                    if (spec != null) {
                        if (!names.add(spec.name())) {
                            poolFields.get(i).reject("name", "is the name of another node pool of this cluster");
                        }
                        pools.add(spec);
                    }
                }
            }
            String key = in.string("idempotencyKey", idempotencyKey, true, 128, Patterns.IDEMPOTENCY_KEY);
            in.finish(this).throwIfInvalid();
            return new CreateClusterCommand(tenantId, projectId, poolId, name, mode, location, channel, version, networkId,
                    networks == null ? List.of() : networks, privateNodes, description, pools, key);
        }
    }

    record ListClusters(@Required String tenantId, String poolId, String projectId, Boolean includeDeleted)
            implements Request<ListClustersQuery> {
        @Override
        public ListClustersQuery command(Fields in) {
            String tenantId = in.string("tenantId", this.tenantId, true, 128, Patterns.TENANT_ID);
            String poolId = in.string("poolId", this.poolId, false, 57, Patterns.POOL_ID);
            String projectId = in.string("projectId", this.projectId, false, 56, Patterns.PROJECT_ID);
            Boolean includeDeleted = in.bool("includeDeleted", this.includeDeleted, false);
            in.finish(this).throwIfInvalid();
            return new ListClustersQuery(tenantId, poolId, projectId, includeDeleted);
        }
    }

    /** The body of {@code get} and {@code delete}. */
    record OneCluster(@Required String tenantId, @Required String clusterId) implements Request<ClusterRef> {
        @Override
        public ClusterRef command(Fields in) {
            String tenantId = in.string("tenantId", this.tenantId, true, 128, Patterns.TENANT_ID);
            String clusterId = in.string("clusterId", this.clusterId, true, 56, Patterns.CLUSTER_ID);
            in.finish(this).throwIfInvalid();
            return new ClusterRef(tenantId, clusterId);
        }
    }

    /** The body of {@code delete}: {@code deleteVolume} (default false) destroys the cluster's shared volume with it. */
    record DeleteCluster(@Required String tenantId, @Required String clusterId, Boolean deleteVolume)
            implements Request<DeleteCluster.Command> {
        record Command(ClusterRef ref, boolean deleteVolume) {}

        @Override
        public Command command(Fields in) {
            String tenantId = in.string("tenantId", this.tenantId, true, 128, Patterns.TENANT_ID);
            String clusterId = in.string("clusterId", this.clusterId, true, 56, Patterns.CLUSTER_ID);
            Boolean deleteVolume = in.bool("deleteVolume", this.deleteVolume, false);
            in.finish(this).throwIfInvalid();
            return new Command(new ClusterRef(tenantId, clusterId), deleteVolume);
        }
    }

    record UpdateCluster(@Required String tenantId, @Required String clusterId, String version, String releaseChannel,
                         List<String> authorizedNetworks, String description) implements Request<UpdateClusterCommand> {
        @Override
        public UpdateClusterCommand command(Fields in) {
            String tenantId = in.string("tenantId", this.tenantId, true, 128, Patterns.TENANT_ID);
            String clusterId = in.string("clusterId", this.clusterId, true, 56, Patterns.CLUSTER_ID);
            String version = in.string("version", this.version, false, 64, Patterns.VERSION);
            ReleaseChannel channel = in.oneOf("releaseChannel", releaseChannel, false, CreateClusterCommand.CHANNELS, null);
            List<String> networks = checkNetworks(in, authorizedNetworks);
            String description = in.string("description", this.description, false, 256, null);
            boolean any = in.given("version", this.version) || in.given("releaseChannel", releaseChannel)
                    || in.given("authorizedNetworks", authorizedNetworks) || in.given("description", this.description);
            in.finish(this);
            if (!any && in.valid()) {
                in.reject("", "name at least one of version, releaseChannel, authorizedNetworks, description");
            }
            in.throwIfInvalid();
            return new UpdateClusterCommand(tenantId, clusterId, version, channel, networks, description);
        }
    }

    record Versions(@Required String tenantId, @Required String poolId, @Required String location) implements Request<VersionsQuery> {
        @Override
        public VersionsQuery command(Fields in) {
            String tenantId = in.string("tenantId", this.tenantId, true, 128, Patterns.TENANT_ID);
            String poolId = in.string("poolId", this.poolId, true, 57, Patterns.POOL_ID);
            String location = in.string("location", this.location, true, 40, Patterns.LOCATION);
            in.finish(this).throwIfInvalid();
            return new VersionsQuery(tenantId, poolId, location);
        }
    }

    record Credentials(@Required String tenantId, @Required String clusterId, String role, BigInteger ttlSeconds)
            implements Request<CredentialsCommand> {
        @Override
        public CredentialsCommand command(Fields in) {
            String tenantId = in.string("tenantId", this.tenantId, true, 128, Patterns.TENANT_ID);
            String clusterId = in.string("clusterId", this.clusterId, true, 56, Patterns.CLUSTER_ID);
            CredentialRole role = in.oneOf("role", this.role, false, CredentialRole.BY_WIRE, CredentialRole.VIEW);
            Integer ttl = in.integer("ttlSeconds", ttlSeconds, false, CredentialsCommand.MIN_TTL_SECONDS, CredentialsCommand.MAX_TTL_SECONDS);
            in.finish(this).throwIfInvalid();
            return new CredentialsCommand(tenantId, clusterId, role, ttl);
        }
    }

    /** {@code authorizedNetworks}: at most 50 IPv4 CIDR blocks, each with no host bits after its prefix. */
    static List<String> checkNetworks(Fields in, List<String> value) {
        List<String> networks = in.strings("authorizedNetworks", value, 50, 18, null);
        if (networks != null) {
            for (int i = 0; i < networks.size(); i++) {
                String problem = Cidrs.problem(networks.get(i));
                if (problem != null) {
                    in.reject("authorizedNetworks[" + i + "]", problem);
                }
            }
        }
        return networks;
    }
}
