package com.bettercompute.application.fakes;

import com.bettercompute.application.port.MarketFeed;
import com.bettercompute.application.port.MarketLedger;
import com.bettercompute.application.port.MarketRepository;
import com.bettercompute.domain.access.Principal;
import com.bettercompute.domain.access.RoleBinding;
import com.bettercompute.domain.catalog.Budget;
import com.bettercompute.domain.catalog.Network;
import com.bettercompute.domain.catalog.Offer;
import com.bettercompute.domain.catalog.Pool;
import com.bettercompute.domain.catalog.Project;
import com.bettercompute.domain.catalog.Provider;
import com.bettercompute.domain.catalog.ProviderAccount;
import com.bettercompute.domain.catalog.Tenant;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.event.StoredEvent;
import com.bettercompute.domain.market.Charge;
import com.bettercompute.domain.market.MarketSnapshot;
import com.bettercompute.domain.usage.UsageRecord;
import com.bettercompute.domain.volume.SharedVolume;
import com.bettercompute.domain.volume.StorageCharge;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The one "database" the in-memory fakes share. Every fake call holds {@link #lock}, and so does a whole
 * {@link InMemoryTransactions#inTransaction} call, so transactions run one at a time: what a real database
 * gets from row locks ({@code lockTenant}) the fakes get from serializing everything. The held values are
 * immutable records, so a snapshot is a copy of the maps.
 *
 * <p>Because a transaction holds the one lock, work inside a transaction must not wait for another
 * thread that calls the fakes: that thread waits for the lock, and both wait forever.
 */
public final class InMemoryStore {

    /** Everything stored. Package-private: the fakes read and write it under the lock. */
    static final class State {
        final Map<String, Cluster> clusters = new LinkedHashMap<>();
        final Map<String, Provider> providers = new LinkedHashMap<>();
        final Map<String, ProviderAccount> accounts = new LinkedHashMap<>();
        final Map<String, Pool> pools = new LinkedHashMap<>();
        /** by {@code poolId + '\n' + tenantId} */
        final Map<String, Offer> offers = new LinkedHashMap<>();
        final Map<String, Tenant> tenants = new LinkedHashMap<>();
        final Map<String, Project> projects = new LinkedHashMap<>();
        final Map<String, Network> networks = new LinkedHashMap<>();
        /** by {@code tenantId + '\n' + budgetId} */
        final Map<String, Budget> budgets = new LinkedHashMap<>();
        /** retired catalog entries, as {@code kind + '\n' + id} */
        final Set<String> retired = new LinkedHashSet<>();
        final Map<String, Principal> principals = new LinkedHashMap<>();
        /** principal id to its token's SHA-256 (absent: no token) */
        final Map<String, String> tokenHashes = new LinkedHashMap<>();
        final Map<String, List<RoleBinding>> bindings = new LinkedHashMap<>();
        /** cluster id to owner principal id */
        final Map<String, String> owners = new LinkedHashMap<>();
        final List<StoredEvent> events = new ArrayList<>();
        long lastSequence;
        /** cluster id to its reconcile lease; apart from the clusters, as the lease columns are apart from update */
        final Map<String, Lease> leases = new LinkedHashMap<>();
        /** by {@code clusterId + '\n' + hourStart} */
        final Map<String, UsageRecord> usage = new LinkedHashMap<>();
        /** the market as last saved (null: never saved) and how many saves it has seen */
        MarketSnapshot market;
        long marketVersion;
        /** every request ever filed, by its filing sequence, in order */
        final Map<Long, MarketRepository.Episode> episodes = new LinkedHashMap<>();
        /** the requests that left the market, by filing sequence, in the order they left */
        final Map<Long, MarketRepository.Closed> closed = new LinkedHashMap<>();
        final Map<Charge.Key, Charge> charges = new LinkedHashMap<>();
        final List<MarketFeed.Entry> feed = new ArrayList<>();
        long feedSequence;
        /** by {@code tenantId + '\n' + idempotencyKey} */
        final Map<String, MarketLedger.CreditTopUp> credits = new LinkedHashMap<>();
        /** by {@code clusterId + '\n' + serviceUid} */
        final Map<String, com.bettercompute.domain.loadbalancer.LoadBalancer> loadBalancers = new LinkedHashMap<>();
        final Map<String, SharedVolume> volumes = new LinkedHashMap<>();
        /** by {@code volumeId + '\n' + hourStart} */
        final Map<String, StorageCharge> storageCharges = new LinkedHashMap<>();

        State copy() {
            State s = new State();
            s.clusters.putAll(clusters);
            s.providers.putAll(providers);
            s.accounts.putAll(accounts);
            s.pools.putAll(pools);
            s.offers.putAll(offers);
            s.tenants.putAll(tenants);
            s.projects.putAll(projects);
            s.networks.putAll(networks);
            s.budgets.putAll(budgets);
            s.retired.addAll(retired);
            s.principals.putAll(principals);
            s.tokenHashes.putAll(tokenHashes);
            s.bindings.putAll(bindings);
            s.owners.putAll(owners);
            s.events.addAll(events);
            s.lastSequence = lastSequence;
            s.leases.putAll(leases);
            s.usage.putAll(usage);
            s.market = market;
            s.marketVersion = marketVersion;
            s.episodes.putAll(episodes);
            s.closed.putAll(closed);
            s.charges.putAll(charges);
            s.feed.addAll(feed);
            s.feedSequence = feedSequence;
            s.credits.putAll(credits);
            s.loadBalancers.putAll(loadBalancers);
            s.volumes.putAll(volumes);
            s.storageCharges.putAll(storageCharges);
            return s;
        }
    }

    /** Who holds a cluster's reconcile lease, and until when. */
    record Lease(String owner, Instant until) {}

    private final ReentrantLock lock = new ReentrantLock(true);
    private State state = new State();
    private int transactionDepth;

    /** Runs one fake call under the lock. */
    <T> T locked(Function<State, T> call) {
        lock.lock();
        try {
            return call.apply(state);
        } finally {
            lock.unlock();
        }
    }

    void lockedRun(Consumer<State> call) {
        locked(s -> {
            call.accept(s);
            return null;
        });
    }

    /** Forgets everything stored, as a fresh store would. */
    public void clear() {
        lockedRun(s -> state = new State());
    }

    /** Whether the calling thread is inside {@link #transaction}. */
    boolean inTransaction() {
        return lock.isHeldByCurrentThread() && transactionDepth > 0;
    }

    /** Runs the work holding the lock; the outermost call restores the snapshot when the work throws. */
    <T> T transaction(Supplier<T> work) {
        lock.lock();
        try {
            boolean outermost = transactionDepth == 0;
            State snapshot = outermost ? state.copy() : null;
            transactionDepth++;
            try {
                return work.get();
            } catch (RuntimeException | Error e) {
                if (outermost) {
                    state = snapshot;
                }
                throw e;
            } finally {
                transactionDepth--;
            }
        } finally {
            lock.unlock();
        }
    }
}
