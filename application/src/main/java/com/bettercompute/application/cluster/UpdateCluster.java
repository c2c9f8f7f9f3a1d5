package com.bettercompute.application.cluster;

import com.bettercompute.application.access.Authorizer;
import com.bettercompute.application.access.Caller;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Action;
import com.bettercompute.domain.cluster.Cluster;

import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;


/**
 * {@code kubernetesClusters.update}: records the change and bumps {@code version}. A change the provider
 * must apply (version, release channel, authorized networks) turns a {@code ready} or failed cluster
 * {@code updating}; the reconciler takes it from there. A cluster not yet at the provider keeps its state:
 * it will be created with the new values. The description changes nothing at the provider.
 */
public final class UpdateCluster {
    private final Transactions tx;
    private final ClusterRepository clusters;
    private final ClusterLookup lookup;
    private final Clock clock;

    public UpdateCluster(Transactions tx, ClusterRepository clusters, Authorizer authorizer, Clock clock) {
        this.tx = tx;
        this.clusters = clusters;
        this.lookup = new ClusterLookup(clusters, authorizer);
        this.clock = clock;
    }

    public Cluster update(Caller caller, UpdateClusterCommand cmd) {
        return GuardedWrite.retry(() -> {
            Cluster current = lookup.require(caller, cmd.ref(), Action.UPDATE);
            if (current.goingAway()) {
                throw new DomainException(ErrorCode.INVALID_STATE,
                        "Cluster " + current.id() + " is being deleted and cannot be changed.",
                        Map.of("state", current.state().wire()));
            }
            Cluster changed = apply(current, cmd);
            Boolean saved = tx.inTransaction(() -> clusters.updateRequest(changed, current.version()));
            return saved ? Optional.of(changed) : Optional.<Cluster>empty();
        });
    }

    static boolean changesProvider(Cluster c, UpdateClusterCommand cmd) {
        return (cmd.version() != null && !cmd.version().equals(c.requestedVersion()))
                || (cmd.releaseChannel() != null && cmd.releaseChannel() != c.releaseChannel())
                || (cmd.authorizedNetworks() != null && !cmd.authorizedNetworks().equals(c.authorizedNetworks()));
    }

    private Cluster apply(Cluster c, UpdateClusterCommand cmd) {
        Cluster.Builder b = c.toBuilder();
        if (cmd.version() != null) {
            b.requestedVersion(cmd.version());
        }
        if (cmd.releaseChannel() != null) {
            b.releaseChannel(cmd.releaseChannel());
        }
        if (cmd.authorizedNetworks() != null) {
            b.authorizedNetworks(cmd.authorizedNetworks());
        }
        if (cmd.description() != null) {
            b.description(cmd.description());
        }
        return b.build().changeRequested(changesProvider(c, cmd), clock.instant().truncatedTo(ChronoUnit.MICROS));
    }

}
