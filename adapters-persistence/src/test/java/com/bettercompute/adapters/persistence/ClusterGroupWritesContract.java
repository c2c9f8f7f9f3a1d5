package com.bettercompute.adapters.persistence;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.event.DomainEvent;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static com.bettercompute.adapters.persistence.Samples.T0;
import static com.bettercompute.adapters.persistence.Samples.deleted;
import static com.bettercompute.adapters.persistence.Samples.full;
import static com.bettercompute.adapters.persistence.Samples.minimal;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The parts of the database's insert of new clusters that a group of creates uses ({@link ClusterInserts}): the tenants'
 * locks and the checks read under them in one call, and the group's writes (clusters, owners, events) sent together and
 * made ahead in the callers' threads; run on H2 and PostgreSQL.
 */
abstract class ClusterGroupWritesContract extends PortsContract {
    private JdbiClusterRepository clusters;

    @BeforeEach
    void repository() {
        clusters = (JdbiClusterRepository) ports.clusters();
    }

    /** Which of the names asked each tenant's clusters that are not deleted have, as nameInUse answers each. */
    private Map<String, Set<String>> namesInUse(Map<String, List<String>> namesByTenant) {
        Map<String, Set<String>> used = new HashMap<>();
        namesByTenant.forEach((tenant, names) -> names.stream().filter(name -> clusters.nameInUse(tenant, name))
                .forEach(name -> used.computeIfAbsent(tenant, t -> new HashSet<>()).add(name)));
        return used;
    }

    /** countNotDeleted of each tenant. */
    private Map<String, Integer> counts(String... tenants) {
        Map<String, Integer> counts = new HashMap<>();
        Arrays.stream(tenants).forEach(t -> counts.put(t, clusters.countNotDeleted(t)));
        return counts;
    }

    @Test
    void insert_all_stores_what_insert_stores_and_find_all_reads_them_at_once() {
        Cluster full = full("acme", "train", T0);
        Cluster minimal = minimal("acme", "serve", T0);
        Cluster other = minimal("globex", "train", T0);
        Samples.insertAll(clusters, List.of(full, minimal, other));

        assertThat(clusters.find(full.id())).contains(full);
        assertThat(clusters.find(minimal.id())).contains(minimal);
        assertThat(clusters.findAll(List.of(full.id(), "kcl_nothing", minimal.id()))).containsExactlyInAnyOrder(full, minimal);
        assertThat(clusters.findAll(List.of())).isEmpty();
        assertThat(namesInUse(Map.of("acme", List.of("train", "serve", "free"), "globex", List.of("serve"))))
                .isEqualTo(Map.of("acme", java.util.Set.of("train", "serve")));
        Samples.insertAll(clusters, List.of());
        assertThat(counts("acme", "globex", "initech")).isEqualTo(Map.of("acme", 2, "globex", 1, "initech", 0));
    }


    /** How a create group's clusters and events are handed over: as they are, or prepared first (as creates do). */
    enum Handing { AS_THEY_ARE, PREPARED }

    /** A create group's writes: the clusters, their owners and their events. */
    private void groupWrites(List<Cluster> group, Handing handing) {
        List<DomainEvent> events = group.stream().map(c -> new DomainEvent("kubernetes.cluster.created", c.tenantId(), c.id(),
                c.createdAt(), Map.of("name", c.name()))).toList();
        if (handing == Handing.PREPARED) {
            clusters.insertAllPrepared(group.stream().map(clusters::prepareInsert).toList());
        } else {
            Samples.insertAll(clusters, group);
        }
        Map<String, String> owners = new java.util.LinkedHashMap<>();
        group.forEach(c -> owners.put(c.id(), "user:" + c.name()));
        ports.access().addOwners(owners);
        if (handing == Handing.PREPARED) {
            ports.outbox().appendAllPrepared(events.stream().map(ports.outbox()::prepare).toList());
        } else {
            ports.outbox().appendAll(events);
        }
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(Handing.class)
    void writes_together_store_what_the_writes_store_one_by_one_and_a_read_meanwhile_sees_them(Handing handing) {
        Samples.insert(clusters, minimal("acme", "before", T0));
        List<Cluster> group = List.of(full("acme", "train", T0), minimal("globex", "train", T0), full("acme", "serve", T0));

        List<Cluster> seen = ports.transactions().inTransaction(() -> ports.transactions().writesTogether(() -> {
            groupWrites(group, handing);
            return clusters.findAll(group.stream().map(Cluster::id).toList());
        }));

        assertThat(seen).containsExactlyInAnyOrderElementsOf(group);
        group.forEach(c -> assertThat(clusters.find(c.id())).contains(c));
        group.forEach(c -> assertThat(ports.access().owner(c.id())).contains("user:" + c.name()));
        assertThat(ports.outbox().read(0, 100, null)).extracting(e -> e.event().subjectId())
                .containsExactlyElementsOf(group.stream().map(Cluster::id).toList());
        assertThat(counts("acme", "globex")).isEqualTo(Map.of("acme", 3, "globex", 1));
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(Handing.class)
    void writes_together_keep_every_character_of_a_value_and_tell_an_empty_text_from_a_null_one(Handing handing) {
        // PostgreSQL's held writes copy a group's clusters and node pools as COPY's text (tab-separated, \N for null,
        // backslash escapes) and send other columns as arrays: a value must survive quotes, backslashes, braces,
        // commas, the word NULL, a literal \N, COPY's end-of-data line, tabs, line breaks, blanks, the characters COPY
        // escapes only after a backslash, and characters beyond Latin-1
        String tricky = "say \"hi\", {not an array}, back\\slash, NULL, \\N, ' quote, tab\t, line\nbreak\r\n, ünïcödé ☃"
                + ", the end-of-data marker\n\\.\n, raw vt\u000b ff\f bs\b";
        Cluster full = full("acme", "odd", T0);
        Cluster odd = full.toBuilder().description(tricky)
                .nodePools(full.nodePools().stream().map(p -> p.withState(p.state(), tricky, T0)).toList()).build();
        Cluster blank = minimal("acme", "blank", T0).toBuilder().description("").build();
        Cluster none = minimal("acme", "none", T0);

        ports.transactions().inTransaction(() -> ports.transactions().writesTogether(() -> {
            groupWrites(List.of(odd, blank, none), handing);
            return null;
        }));

        assertThat(clusters.find(odd.id())).contains(odd);
        assertThat(clusters.find(blank.id()).orElseThrow().description()).isEmpty();
        assertThat(clusters.find(none.id()).orElseThrow().description()).isNull();
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(Handing.class)
    void a_taken_name_among_writes_together_is_a_conflict_and_their_transaction_stores_none_of_them(Handing handing) {
        Samples.insert(clusters, minimal("acme", "train", T0));
        List<Cluster> group = List.of(minimal("acme", "fresh", T0), minimal("acme", "train", T0, "another-key"));

        assertThatThrownBy(() -> ports.transactions().inTransaction(() -> ports.transactions().writesTogether(() -> {
            groupWrites(group, handing);
            return null;
        }))).isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));

        group.forEach(c -> assertThat(ports.access().owner(c.id())).isEmpty());
        assertThat(clusters.find(group.get(0).id())).isEmpty();
        assertThat(ports.outbox().read(0, 100, null)).isEmpty();
        assertThat(clusters.countNotDeleted("acme")).isEqualTo(1);
    }

    @Test
    void prepared_inserts_outside_writes_together_and_one_alone_store_what_insert_all_stores() {
        List<Cluster> apart = List.of(full("acme", "one", T0), minimal("acme", "two", T0));
        Cluster alone = full("globex", "alone", T0);

        ports.transactions().inTransaction(() -> {
            clusters.insertAllPrepared(apart.stream().map(clusters::prepareInsert).toList());
            return null;
        });
        ports.transactions().inTransaction(() -> ports.transactions().writesTogether(() -> {
            clusters.insertAllPrepared(List.of(clusters.prepareInsert(alone)));
            return null;
        }));

        apart.forEach(c -> assertThat(clusters.find(c.id())).contains(c));
        assertThat(clusters.find(alone.id())).contains(alone);
        assertThat(counts("acme", "globex")).isEqualTo(Map.of("acme", 2, "globex", 1));
    }


    @ParameterizedTest(name = "{0}")
    @MethodSource("groupsOfCreates")
    void lock_and_check_locks_the_tenants_that_exist_and_reads_what_name_in_use_count_not_deleted_and_find_read(String what,
            Map<String, List<String>> namesByTenant, List<String> ids) {
        ports.catalog().save(Samples.tenants(10, "acme", "globex"));
        Cluster train = minimal("acme", "train", T0);
        Cluster serve = full("acme", "serve", T0);
        Samples.insertAll(clusters, List.of(train, serve, minimal("acme", "gone", T0), minimal("globex", "infer", T0)));
        clusters.update(deleted(clusters.find(minimal("acme", "gone", T0).id()).orElseThrow(), T0), 1);

        JdbiClusterRepository.CreateChecks read = ports.transactions().inTransaction(() -> clusters.lockAndCheck(namesByTenant,
                ids.stream().map(id -> id.equals("train") ? train.id() : id.equals("serve") ? serve.id() : id).toList()));

        assertThat(read.tenants()).isEqualTo(namesByTenant.keySet().stream().filter(t -> !t.equals("initech"))
                .collect(java.util.stream.Collectors.toSet()));
        assertThat(read.namesInUse()).isEqualTo(namesInUse(namesByTenant));
        assertThat(read.counts()).isEqualTo(counts(namesByTenant.keySet().toArray(String[]::new)));
        assertThat(read.existing()).containsExactlyInAnyOrderElementsOf(clusters.findAll(
                ids.stream().map(id -> id.equals("train") ? train.id() : id.equals("serve") ? serve.id() : id).toList()));
    }

    static Stream<Arguments> groupsOfCreates() {
        return Stream.of(
                Arguments.of("nothing asked", Map.of(), List.of()),
                Arguments.of("new names and ids in two tenants", Map.of("acme", List.of("new", "other"), "globex", List.of("new")),
                        List.of("kcl_new1", "kcl_new2")),
                Arguments.of("a taken name, a deleted one, a tenant with none", Map.of("acme", List.of("train", "gone"),
                        "initech", List.of("train")), List.of("kcl_new1")),
                Arguments.of("ids that exist (a replay), one with node pools", Map.of("acme", List.of("serve")),
                        List.of("train", "serve", "kcl_new1", "train")),
                Arguments.of("ids only, no tenant locked", Map.of(), List.of("serve")),
                Arguments.of("a name another tenant has, and one name asked twice", Map.of("acme", List.of("infer", "serve", "serve"),
                        "globex", List.of("serve", "infer")), List.of()));
    }

    @Test
    void lock_and_check_is_refused_outside_a_transaction() {
        assertThatThrownBy(() -> clusters.lockAndCheck(Map.of("acme", List.of("train")), List.of()))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void tenants_locked_together_are_locked_in_id_order_whatever_the_order_asked_so_callers_never_deadlock() throws Exception {
        List<String> tenants = List.of("acme", "globex", "initech");
        ports.catalog().save(Samples.tenants(100, tenants.toArray(String[]::new)));
        int callers = 20;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(callers);
        try {
            java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
            List<java.util.concurrent.Future<Set<String>>> locked = new java.util.ArrayList<>();
            for (int i = 0; i < callers; i++) {
                Cluster cluster = minimal(tenants.get(i % 3), "c" + i, T0);
                locked.add(pool.submit(() -> {
                    start.await();
                    return ports.transactions().inTransaction(() -> {
                        Map<String, List<String>> asked = new java.util.LinkedHashMap<>();
                        List<String> order = new java.util.ArrayList<>(tenants);
                        order.add("nobody");
                        if (cluster.name().hashCode() % 2 == 0) {
                            java.util.Collections.reverse(order);
                        }
                        order.forEach(t -> asked.put(t, List.of(cluster.name())));
                        Set<String> read = clusters.lockAndCheck(asked, List.of()).tenants();
                        clusters.insertOne(cluster);
                        return read;
                    });
                }));
            }
            start.countDown();
            for (java.util.concurrent.Future<Set<String>> f : locked) {
                assertThat(f.get(60, java.util.concurrent.TimeUnit.SECONDS)).containsExactlyElementsOf(tenants);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(counts(tenants.toArray(String[]::new)).values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(callers);
    }
}
