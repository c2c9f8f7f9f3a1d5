package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.ClusterRepository.Insertion;
import com.bettercompute.application.port.ClusterRepository.NewCluster;
import com.bettercompute.application.port.EventOutbox;
import com.bettercompute.domain.cluster.Cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@link com.bettercompute.application.port.ClusterRepository#insert} on the database: the inserts of concurrent calls
 * share one transaction ({@link GroupCommit}: one commit, one WAL flush, one turn at the tenants' locks for every call
 * that arrived while the previous commit ran), and each caller is answered once the commit that holds its writes is
 * done. In a transaction a caller already holds, its insert runs alone in that transaction.
 *
 * <p>A group's transaction takes its tenants' locks first, in the order of their ids, so two such transactions never
 * wait for each other in a cycle; under them the checks are exact. What they need is read with the locks, once for the
 * transaction (the ids already taken, the names in use, each tenant's count), and every insert checked counts for the
 * ones after it; the writes of those that pass go at once: rows, node pools and counts, owners, events.
 */
final class ClusterInserts implements GroupCommit.Work<ClusterInserts.Pending, Insertion> {
    private final JdbiClusterRepository clusters;
    private final JdbiAccessRepository access;
    private final JdbiEventOutbox outbox;
    private final GroupCommit<Pending, Insertion> group;

    ClusterInserts(JdbiTransactions tx, JdbiClusterRepository clusters, JdbiAccessRepository access, JdbiEventOutbox outbox) {
        this.clusters = clusters;
        this.access = access;
        this.outbox = outbox;
        this.group = new GroupCommit<>(tx, this);
    }

    /** A new cluster waiting for its transaction, its rows and its event made ahead in the caller's thread. */
    record Pending(NewCluster asked, JdbiClusterRepository.PreparedInsert rows, EventOutbox.PreparedEvent event) {
        Cluster cluster() {
            return asked.cluster();
        }
    }

    Insertion insert(NewCluster asked) {
        // its rows and its event made here, in the caller's thread: the group's writer only sends them
        Pending pending = new Pending(asked, clusters.prepareInsert(asked.cluster()), outbox.prepare(asked.event()));
        return JdbiTransactions.active() ? group.inCallersTransaction(pending) : group.commit(pending);
    }

    @Override
    public GroupCommit.Checks<Pending, Insertion> begin(List<Pending> calls) {
        Map<String, List<String>> namesByTenant = new TreeMap<>();
        for (Pending c : calls) {
            namesByTenant.computeIfAbsent(c.cluster().tenantId(), t -> new ArrayList<>()).add(c.cluster().name());
        }
        JdbiClusterRepository.CreateChecks read = clusters.lockAndCheck(namesByTenant,
                calls.stream().map(c -> c.cluster().id()).toList());
        return new Checks(read);
    }

    /** The checks of one transaction, on what it read under its locks and the inserts it has checked so far. */
    private static final class Checks implements GroupCommit.Checks<Pending, Insertion> {
        private final Set<String> tenants;
        /** The clusters already stored or checked in this transaction, by id. */
        private final Map<String, Cluster> byId = new HashMap<>();
        /** tenant id + '\n' + name, of the clusters not deleted, stored or checked in this transaction */
        private final Set<String> names = new HashSet<>();
        private final Map<String, Integer> counts;

        Checks(JdbiClusterRepository.CreateChecks read) {
            this.tenants = read.tenants();
            this.counts = new HashMap<>(read.counts());
            read.namesInUse().forEach((tenant, used) -> used.forEach(name -> names.add(tenant + "\n" + name)));
            read.existing().forEach(c -> byId.put(c.id(), c));
        }

        @Override
        public Insertion check(Pending call) {
            Cluster cluster = call.cluster();
            if (!tenants.contains(cluster.tenantId())) {
                return new Insertion.NoTenant();
            }
            Cluster earlier = byId.get(cluster.id());
            if (earlier != null) {
                return new Insertion.AlreadyStored(earlier);
            }
            String name = cluster.tenantId() + "\n" + cluster.name();
            if (names.contains(name)) {
                return new Insertion.NameInUse();
            }
            int limit = call.asked().maxClusters();
            if (counts.getOrDefault(cluster.tenantId(), 0) >= limit) {
                return new Insertion.OverQuota(limit);
            }
            byId.put(cluster.id(), cluster);
            names.add(name);
            counts.merge(cluster.tenantId(), 1, Integer::sum);
            return null;
        }
    }

    @Override
    public List<Insertion> write(List<Pending> calls) {
        clusters.insertAllPrepared(calls.stream().map(Pending::rows).toList());
        Map<String, String> owners = new LinkedHashMap<>();
        calls.forEach(c -> owners.put(c.cluster().id(), c.asked().ownerId()));
        access.addOwners(owners);
        outbox.appendAllPrepared(calls.stream().map(Pending::event).toList());
        return calls.stream().<Insertion>map(c -> new Insertion.Inserted(c.cluster())).toList();
    }
}
