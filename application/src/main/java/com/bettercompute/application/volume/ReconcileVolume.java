package com.bettercompute.application.volume;

import com.bettercompute.application.port.CatalogRepository;
import com.bettercompute.application.port.ClusterRepository;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.application.port.OperationStatus;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.application.port.SharedVolumeProvider;
import com.bettercompute.application.port.SharedVolumeProvider.VolumeObservation;
import com.bettercompute.application.port.SharedVolumeProviders;
import com.bettercompute.application.port.StorageLedger;
import com.bettercompute.application.port.Transactions;
import com.bettercompute.application.port.VolumeRepository;
import com.bettercompute.application.reconcile.Cadence;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.ClusterState;
import com.bettercompute.domain.volume.SharedVolume;
import com.bettercompute.domain.volume.StorageMeter;
import com.bettercompute.domain.volume.VolumeEvent;
import com.bettercompute.domain.volume.VolumeFatePolicy;
import com.bettercompute.domain.volume.VolumeState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One pass of the volume loop over a volume that was made (its making is its cluster's pass, {@link ClusterVolumes}):
 *
 * <ul>
 *   <li>attached, its cluster gone: its fate ({@link VolumeFatePolicy}) — preserved, or (opted in, no node holding it)
 *       its delete accepted;</li>
 *   <li>attached or preserved: the bytes it holds sampled every {@link StorageSettings#sampleEvery()}, the billing
 *       integral moved and the hours it closed billed, in one transaction;</li>
 *   <li>deleting: destroyed at the provider (intent saved first), then {@code deleted}.</li>
 * </ul>
 * At most one provider call that changes anything per pass. Two replicas may pass over one volume at once: every write
 * is guarded by the row's revision and every provider call is idempotent, so the slower one saves nothing.
 */
public final class ReconcileVolume {
    private static final Logger log = LoggerFactory.getLogger(ReconcileVolume.class);
    static final String DELETE = "delete-volume";

    private final Transactions tx;
    private final VolumeRepository volumes;
    private final ClusterRepository clusters;
    private final CatalogRepository catalog;
    private final EventOutbox outbox;
    private final SharedVolumeProviders providers;
    private final StorageSettings settings;
    private final Cadence cadence;
    private final Clock clock;
    private final VolumeWrites writes;
    private final StorageBilling billing;

    public ReconcileVolume(Transactions tx, VolumeRepository volumes, ClusterRepository clusters, CatalogRepository catalog,
                           EventOutbox outbox, StorageLedger ledger, MarketRepository markets, SharedVolumeProviders providers,
                           StorageSettings settings, Cadence cadence, Clock clock) {
        this.tx = tx;
        this.volumes = volumes;
        this.clusters = clusters;
        this.catalog = catalog;
        this.outbox = outbox;
        this.providers = providers;
        this.settings = settings;
        this.cadence = cadence;
        this.clock = clock;
        this.writes = new VolumeWrites(tx, volumes, outbox);
        this.billing = new StorageBilling(ledger, markets, settings);
    }

    /** Runs one pass; when to look again (null: never, it is deleted or its cluster makes it). */
    public Duration reconcile(String volumeId) {
        Optional<SharedVolume> found = volumes.find(volumeId);
        if (found.isEmpty()) {
            return null;
        }
        SharedVolume v = found.get();
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        Optional<ProviderAccount> account = catalog.account(v.providerAccountId());
        if (account.isEmpty() || v.state() == VolumeState.PENDING || v.state() == VolumeState.FAILED || v.state() == VolumeState.DELETED) {
            return null;
        }
        SharedVolumeProvider provider = providers.forAccount(account.get());
        SharedVolumeProvider.VolumeLocator at = ClusterVolumes.locator(v, account.get());
        try {
            return switch (v.state()) {
                case ATTACHED -> clusterGone(v) ? fate(v, provider, at, now) : sample(v, provider, at, now);
                case PRESERVED -> sample(v, provider, at, now);
                case DELETING -> destroy(v, provider, at, now);
                default -> null;
            };
        } catch (ProviderException e) {
            log.warn("volume {}: the provider failed ({}): {}", v.id(), e.kind(), e.getMessage());
            return later(v, cadence.converging(), now);
        }
    }

    private boolean clusterGone(SharedVolume v) {
        return clusters.find(v.clusterId()).map(Cluster::state).orElse(ClusterState.DELETED) == ClusterState.DELETED;
    }

    private Duration fate(SharedVolume v, SharedVolumeProvider provider, SharedVolumeProvider.VolumeLocator at, Instant now) {
        List<String> holders = v.deleteWithCluster() ? provider.observe(at).holders() : List.of();
        VolumeFatePolicy.Fate fate = VolumeFatePolicy.whenClusterGone(v, holders);
        if (fate instanceof VolumeFatePolicy.Fate.Preserve p) {
            SharedVolume preserved = v.withState(VolumeState.PRESERVED, p.why(), now).withProgress(v.progress().next(now));
            writes.save(v, preserved, List.of(new VolumeEvent.VolumePreserved(preserved, now)));
        } else {
            acceptDelete(v, now);
        }
        // either way (or another writer came first) the volume is looked at again at once, in its new state
        return Duration.ZERO;
    }

    /** The delete is accepted: billing stops now, and the volume goes {@code deleting}; one transaction. */
    boolean acceptDelete(SharedVolume v, Instant now) {
        SharedVolume deleting = v.deleteAcceptedAt(now);
        return tx.inTransaction(() -> {
            if (!volumes.update(deleting, v.version())) {
                return false;
            }
            billing.stop(v, now);
            outbox.append(new VolumeEvent.VolumeDeleting(deleting, now).stored());
            return true;
        });
    }

    private Duration sample(SharedVolume v, SharedVolumeProvider provider, SharedVolumeProvider.VolumeLocator at, Instant now) {
        if (v.sampledAt() != null && now.isBefore(v.sampledAt().plus(settings.sampleEvery()))) {
            return later(v, Duration.between(now, v.sampledAt().plus(settings.sampleEvery())), now);
        }
        OptionalLong bytes = provider.usedBytes(at);
        if (bytes.isEmpty()) {
            return later(v, settings.sampleEvery(), now);
        }
        StorageMeter.Step step = v.meter() == null ? new StorageMeter.Step(StorageMeter.start(bytes.getAsLong(), now), List.of())
                : v.meter().sample(bytes.getAsLong(), now);
        SharedVolume sampled = v.sampled(bytes.getAsLong(), now, step.meter()).withProgress(v.progress().next(now.plus(settings.sampleEvery())));
        tx.inTransaction(() -> {
            if (volumes.update(sampled, v.version())) {
                billing.bill(v, step.closed(), now);
            }
            return null;
        });
        return settings.sampleEvery();
    }

    private Duration destroy(SharedVolume v, SharedVolumeProvider provider, SharedVolumeProvider.VolumeLocator at, Instant now) {
        VolumeObservation obs = provider.observe(at);
        if (!obs.exists() || !v.id().equals(obs.volumeId())) {
            // gone (or the name was taken by someone else after ours went): ours is deleted
            SharedVolume deleted = v.deleted(now);
            writes.save(v, deleted, List.of(new VolumeEvent.VolumeDeleted(deleted, now)));
            return null;
        }
        if (obs.status() == SharedVolumeProvider.Status.DELETING || obs.status() == SharedVolumeProvider.Status.CREATING) {
            return later(v, cadence.converging(), now);
        }
        if (DELETE.equals(v.progress().pendingAction()) && v.progress().operation() != null) {
            OperationStatus status = provider.operation(at, v.progress().operation());
            if (!status.done()) {
                return later(v, cadence.converging(), now);
            }
            if (status.error() != null) {
                SharedVolume failed = v.withState(VolumeState.DELETING, status.error(), now)
                        .withProgress(v.progress().failedAttempt().next(now.plus(cadence.backoff(v.progress().failures() + 1))));
                writes.save(v, failed, List.of());
                return cadence.backoff(v.progress().failures() + 1);
            }
        }
        VolumeWrites.Called called = writes.call(v, DELETE, now.plus(cadence.converging()), p -> p.delete(at, v.id()), provider);
        if (called.refused() != null) {
            ProviderException e = called.refused();
            SharedVolume intent = called.saved();
            Duration wait = VolumeWrites.passing(e) ? cadence.converging() : cadence.backoff(intent.progress().failures() + 1);
            SharedVolume refused = (VolumeWrites.passing(e) ? intent : intent.withState(VolumeState.DELETING, e.getMessage(), now))
                    .withProgress(intent.progress().failedAttempt().next(now.plus(wait)));
            writes.save(intent, refused, List.of());
            return wait;
        }
        return cadence.converging();
    }

    /** Nothing to do now: looked at again after {@code wait} (saved, so the loop of any replica finds it then). */
    private Duration later(SharedVolume v, Duration wait, Instant now) {
        Instant next = now.plus(wait);
        if (!next.equals(v.progress().nextAttemptAt())) {
            writes.save(v, v.withProgress(v.progress().next(next)), List.of());
        }
        return wait;
    }
}
