package com.bettercompute.adapters.http;

import com.bettercompute.application.cluster.ClusterRef;
import com.bettercompute.application.cluster.CreateClusterCommand;
import com.bettercompute.application.cluster.CredentialRole;
import com.bettercompute.application.cluster.CredentialsCommand;
import com.bettercompute.application.cluster.ListClustersQuery;
import com.bettercompute.application.cluster.UpdateClusterCommand;
import com.bettercompute.application.cluster.VersionsQuery;
import com.bettercompute.adapters.http.Schema.Choice;
import com.bettercompute.adapters.http.Schema.Flag;
import com.bettercompute.adapters.http.Schema.ListOf;
import com.bettercompute.adapters.http.Schema.Obj;
import com.bettercompute.adapters.http.Schema.Whole;
import com.bettercompute.adapters.http.Request.Body;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/**
 * The bodies of {@code /api/compute/kubernetesClusters/<method>}: each record's schema is the clusters
 * spec's input table of its method (the fields in the table's order), and its {@code command} turns the
 * checked body into the use case's command.
 */
final class ClusterRequests {
    private ClusterRequests() {}

    static final Choice MODE = Choice.of(CreateClusterCommand.MODES.keySet(), null);
    static final Choice CHANNEL = Choice.of(CreateClusterCommand.CHANNELS.keySet(), null);
    static final ListOf NETWORKS = ListOf.of(Wire.CIDR, 50);

    record CreateCluster(String tenantId, String projectId, String poolId, String name, String mode, String location,
                         String releaseChannel, String version, String networkId, List<String> authorizedNetworks,
                         Boolean privateNodes, String description, List<NodePoolRequests.NodePool> nodePools,
                         String idempotencyKey) implements Request<CreateClusterCommand> {
        static final Body<CreateCluster> BODY = new Body<>(CreateCluster.class, Obj.named("CreateCluster")
                .required("tenantId", Wire.TENANT_ID)
                .optional("projectId", Wire.PROJECT_ID)
                .required("poolId", Wire.POOL_ID)
                .required("name", Wire.NAME)
                .required("mode", MODE)
                .required("location", Wire.LOCATION)
                .optional("releaseChannel", Choice.of(CreateClusterCommand.CHANNELS.keySet(), "regular"))
                .optional("version", Wire.VERSION)
                .optional("networkId", Wire.NETWORK_ID)
                .optional("authorizedNetworks", NETWORKS)
                .optional("privateNodes", new Flag(false))
                .optional("description", Wire.DESCRIPTION)
                .optional("nodePools", new ListOf(NodePoolRequests.NODE_POOL, 10, "name", "is the name of another node pool of this cluster"))
                .required("idempotencyKey", Wire.IDEMPOTENCY_KEY)
                // the same words as the use case's check: the document states the rule, the use case keeps it for every caller
                .rule("nodePools", "a standard cluster needs 1 to 10 node pools", List.of("mode"),
                        c -> c.get("mode").asText().equals("standard") && !hasItems(c.get("nodePools")))
                .rule("nodePools", "an autopilot cluster takes no node pools: the provider runs its nodes", List.of("mode"),
                        c -> c.get("mode").asText().equals("autopilot") && hasItems(c.get("nodePools")))
                .build());

        @Override
        public CreateClusterCommand command(Given given) {
            return new CreateClusterCommand(tenantId, projectId, poolId, name, CreateClusterCommand.MODES.get(mode), location,
                    CreateClusterCommand.CHANNELS.get(releaseChannel == null ? "regular" : releaseChannel), version, networkId,
                    authorizedNetworks == null ? List.of() : authorizedNetworks, privateNodes != null && privateNodes, description,
                    nodePools == null ? List.of() : nodePools.stream().map(NodePoolRequests.NodePool::spec).toList(), idempotencyKey);
        }
    }

    record ListClusters(String tenantId, String poolId, String projectId, Boolean includeDeleted) implements Request<ListClustersQuery> {
        static final Body<ListClusters> BODY = new Body<>(ListClusters.class, Obj.named("ListClusters")
                .required("tenantId", Wire.TENANT_ID)
                .optional("poolId", Wire.POOL_ID)
                .optional("projectId", Wire.PROJECT_ID)
                .optional("includeDeleted", new Flag(false))
                .build());

        @Override
        public ListClustersQuery command(Given given) {
            return new ListClustersQuery(tenantId, poolId, projectId, includeDeleted != null && includeDeleted);
        }
    }

    /** The body of {@code get}. */
    record OneCluster(String tenantId, String clusterId) implements Request<ClusterRef> {
        static final Body<OneCluster> BODY = new Body<>(OneCluster.class, Obj.named("OneCluster")
                .required("tenantId", Wire.TENANT_ID)
                .required("clusterId", Wire.CLUSTER_ID)
                .build());

        @Override
        public ClusterRef command(Given given) {
            return new ClusterRef(tenantId, clusterId);
        }
    }

    /** The body of {@code delete}: {@code deleteVolume} (default false) destroys the cluster's shared volume with it. */
    record DeleteCluster(String tenantId, String clusterId, Boolean deleteVolume) implements Request<DeleteCluster.Command> {
        static final Body<DeleteCluster> BODY = new Body<>(DeleteCluster.class, Obj.named("DeleteCluster")
                .required("tenantId", Wire.TENANT_ID)
                .required("clusterId", Wire.CLUSTER_ID)
                .optional("deleteVolume", new Flag(false))
                .build());

        record Command(ClusterRef ref, boolean deleteVolume) {}

        @Override
        public Command command(Given given) {
            return new Command(new ClusterRef(tenantId, clusterId), deleteVolume != null && deleteVolume);
        }
    }

    record UpdateCluster(String tenantId, String clusterId, String version, String releaseChannel, List<String> authorizedNetworks,
                         String description) implements Request<UpdateClusterCommand> {
        static final Body<UpdateCluster> BODY = new Body<>(UpdateCluster.class, Obj.named("UpdateCluster")
                .required("tenantId", Wire.TENANT_ID)
                .required("clusterId", Wire.CLUSTER_ID)
                .optional("version", Wire.VERSION)
                .optional("releaseChannel", CHANNEL)
                .optional("authorizedNetworks", NETWORKS)
                .optional("description", Wire.DESCRIPTION)
                .atLeastOneOf("version", "releaseChannel", "authorizedNetworks", "description")
                .build());

        @Override
        public UpdateClusterCommand command(Given given) {
            return new UpdateClusterCommand(tenantId, clusterId, version,
                    releaseChannel == null ? null : CreateClusterCommand.CHANNELS.get(releaseChannel), authorizedNetworks, description);
        }
    }

    record Versions(String tenantId, String poolId, String location) implements Request<VersionsQuery> {
        static final Body<Versions> BODY = new Body<>(Versions.class, Obj.named("Versions")
                .required("tenantId", Wire.TENANT_ID)
                .required("poolId", Wire.POOL_ID)
                .required("location", Wire.LOCATION)
                .build());

        @Override
        public VersionsQuery command(Given given) {
            return new VersionsQuery(tenantId, poolId, location);
        }
    }

    record Credentials(String tenantId, String clusterId, String role, Integer ttlSeconds) implements Request<CredentialsCommand> {
        static final Body<Credentials> BODY = new Body<>(Credentials.class, Obj.named("Credentials")
                .required("tenantId", Wire.TENANT_ID)
                .required("clusterId", Wire.CLUSTER_ID)
                .optional("role", Choice.of(CredentialRole.BY_WIRE.keySet(), CredentialRole.VIEW.wire()))
                .optional("ttlSeconds", new Whole(CredentialsCommand.MIN_TTL_SECONDS, CredentialsCommand.MAX_TTL_SECONDS, null))
                .build());

        @Override
        public CredentialsCommand command(Given given) {
            return new CredentialsCommand(tenantId, clusterId, role == null ? CredentialRole.VIEW : CredentialRole.BY_WIRE.get(role), ttlSeconds);
        }
    }

    /** A list of node pools with at least one (null and left out are none). */
    private static boolean hasItems(JsonNode pools) {
        return pools != null && pools.isArray() && !pools.isEmpty();
    }
}
