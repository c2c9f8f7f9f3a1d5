package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.AccessRepository;
import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.access.Principal;
import com.bettercompute.domain.access.Role;
import com.bettercompute.domain.access.RoleBinding;
import com.bettercompute.domain.catalog.CatalogPrincipal;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.cluster.Ids;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What every {@link AccessRepository} must do; run against the fake, H2 and PostgreSQL. */
abstract class AccessRepositoryContract extends PortsContract {
    private AccessRepository access;

    @BeforeEach
    void repository() {
        access = ports.access();
    }

    static final String ALICE = "user:alice@acme.example";
    static final String BOB = "user:bob@acme.example";
    static final String OPS = "service:ops";
    static final String ALICE_TOKEN = Ids.sha256Hex("alice-token");
    static final String BOB_TOKEN = Ids.sha256Hex("bob-token");
    static final String OPS_TOKEN = Ids.sha256Hex("ops-token");

    static final RoleBinding ALICE_ADMIN = new RoleBinding(ALICE, "acme", null, Role.KUBERNETES_ADMIN, Map.of());
    static final RoleBinding BOB_EDITOR = new RoleBinding(BOB, "acme", null, Role.KUBERNETES_EDITOR,
            Map.of("mode", List.of("autopilot"), "location", List.of("us-central1", "us-central1-a")));
    static final RoleBinding BOB_VIEWER = new RoleBinding(BOB, null, "kcl_0000000000000000000000000a",
            Role.KUBERNETES_VIEWER, Map.of());

    static List<CatalogPrincipal> principals() {
        return List.of(
                new CatalogPrincipal(ALICE, ALICE_TOKEN, false, List.of(ALICE_ADMIN)),
                new CatalogPrincipal(BOB, BOB_TOKEN, false, List.of(BOB_EDITOR, BOB_VIEWER)),
                new CatalogPrincipal(OPS, OPS_TOKEN, true, List.of()));
    }

    @Test
    void a_token_hash_names_its_principal() {
        access.save(principals());

        assertThat(access.principalByTokenHash(ALICE_TOKEN)).contains(new Principal(ALICE, false));
        assertThat(access.principalByTokenHash(OPS_TOKEN)).contains(new Principal(OPS, true));
        assertThat(access.principalByTokenHash(Ids.sha256Hex("nobody's token"))).isEmpty();
        assertThat(access.principalByTokenHash("alice-token")).as("only the hash finds it").isEmpty();
    }

    @Test
    void bindings_read_back_in_order_with_their_conditions() {
        access.save(principals());

        assertThat(access.bindings(ALICE)).containsExactly(ALICE_ADMIN);
        assertThat(access.bindings(BOB)).containsExactly(BOB_EDITOR, BOB_VIEWER);
        assertThat(access.bindings(OPS)).isEmpty();
        assertThat(access.bindings("user:nobody")).isEmpty();
    }

    @Test
    void saving_again_replaces_the_principals_bindings_and_token() {
        access.save(principals());
        String newToken = Ids.sha256Hex("bob-rotated");
        RoleBinding demoted = new RoleBinding(BOB, "acme", null, Role.KUBERNETES_VIEWER, Map.of());
        access.save(List.of(new CatalogPrincipal(BOB, newToken, true, List.of(demoted))));

        assertThat(access.bindings(BOB)).containsExactly(demoted);
        assertThat(access.principalByTokenHash(BOB_TOKEN)).isEmpty();
        assertThat(access.principalByTokenHash(newToken)).contains(new Principal(BOB, true));
        assertThat(access.principalByTokenHash(ALICE_TOKEN)).as("a principal not named is removed").isEmpty();
        assertThat(access.bindings(ALICE)).isEmpty();
    }

    @Test
    void a_principal_not_named_loses_its_token_bindings_and_ownership_at_once() {
        access.save(principals());
        access.addOwner("kcl_a", ALICE);
        access.addOwner("kcl_b", BOB);

        access.save(principals().subList(1, 3));

        assertThat(access.principalByTokenHash(ALICE_TOKEN)).isEmpty();
        assertThat(access.bindings(ALICE)).isEmpty();
        assertThat(access.owner("kcl_a")).isEmpty();
        assertThat(access.clustersOwnedBy(ALICE)).isEmpty();
        assertThat(access.owner("kcl_b")).contains(BOB);
        assertThat(access.bindings(BOB)).containsExactly(BOB_EDITOR, BOB_VIEWER);
    }

    @Test
    void saving_no_principals_removes_them_all() {
        access.save(principals());
        access.addOwner("kcl_a", ALICE);

        access.save(List.of());

        assertThat(access.principalByTokenHash(OPS_TOKEN)).isEmpty();
        assertThat(access.bindings(BOB)).isEmpty();
        assertThat(access.owner("kcl_a")).isEmpty();
    }

    @Test
    void the_clusters_of_tenants_not_listed_lose_their_owners() {
        Instant at = Instant.parse("2026-01-01T00:00:00Z");
        Cluster acme = Samples.minimal("acme", "a", at);
        Cluster globex = Samples.minimal("globex", "g", at);
        Samples.insert(ports.clusters(), acme);
        Samples.insert(ports.clusters(), globex);
        access.addOwner(acme.id(), ALICE);
        access.addOwner(globex.id(), ALICE);

        access.removeOwnersOutside(Set.of("globex"));

        assertThat(access.owner(acme.id())).isEmpty();
        assertThat(access.clustersOwnedBy(ALICE)).containsExactly(globex.id());
        access.removeOwnersOutside(Set.of());
        assertThat(access.clustersOwnedBy(ALICE)).isEmpty();
    }

    @Test
    void add_owners_records_each_as_add_owner_does() {
        Instant at = Instant.parse("2026-01-01T00:00:00Z");
        Cluster a = Samples.minimal("acme", "a", at);
        Cluster b = Samples.minimal("acme", "b", at);
        Samples.insert(ports.clusters(), a);
        Samples.insert(ports.clusters(), b);
        access.addOwner(a.id(), BOB);

        access.addOwners(java.util.Map.of(a.id(), ALICE, b.id(), ALICE));

        assertThat(access.owner(a.id())).contains(ALICE);
        assertThat(access.clustersOwnedBy(ALICE)).containsExactlyInAnyOrder(a.id(), b.id());
        assertThat(access.clustersOwnedBy(BOB)).isEmpty();
    }

    @Test
    void tokens_may_move_between_principals_saved_together() {
        access.save(principals());
        access.save(List.of(
                new CatalogPrincipal(ALICE, BOB_TOKEN, false, List.of(ALICE_ADMIN)),
                new CatalogPrincipal(BOB, ALICE_TOKEN, false, List.of())));

        assertThat(access.principalByTokenHash(BOB_TOKEN)).contains(new Principal(ALICE, false));
        assertThat(access.principalByTokenHash(ALICE_TOKEN)).contains(new Principal(BOB, false));
    }

    @Test
    void two_principals_with_one_token_are_a_conflict_and_save_nothing() {
        access.save(principals());

        assertThatThrownBy(() -> access.save(List.of(
                new CatalogPrincipal("user:carol", null, false, List.of()),
                new CatalogPrincipal("user:mallory", ALICE_TOKEN, false, List.of()),
                new CatalogPrincipal(ALICE, ALICE_TOKEN, false, List.of()))))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT);
                    assertThat(e.getMessage()).doesNotContain(ALICE_TOKEN);
                });
        assertThat(access.principalByTokenHash(ALICE_TOKEN)).contains(new Principal(ALICE, false));
        assertThat(access.principalByTokenHash(BOB_TOKEN)).as("nothing saved, nothing removed").contains(new Principal(BOB, false));
        assertThat(access.bindings("user:carol")).isEmpty();
    }

    @Test
    void a_principal_may_have_no_token() {
        access.save(List.of(new CatalogPrincipal("user:carol", null, false, List.of(ALICE_ADMIN)),
                new CatalogPrincipal("user:dave", null, false, List.of())));

        assertThat(access.bindings("user:carol")).hasSize(1);
    }

    @Test
    void a_cluster_has_one_owner_until_it_is_removed() {
        access.addOwner("kcl_a", ALICE);
        access.addOwner("kcl_b", BOB);
        access.addOwner("kcl_c2", BOB);
        assertThat(access.clustersOwnedBy(BOB)).containsExactlyInAnyOrder("kcl_b", "kcl_c2");

        assertThat(access.owner("kcl_a")).contains(ALICE);
        assertThat(access.owner("kcl_b")).contains(BOB);
        assertThat(access.owner("kcl_c")).isEmpty();

        access.removeOwner("kcl_a");
        access.removeOwner("kcl_a");
        assertThat(access.owner("kcl_a")).isEmpty();
        assertThat(access.owner("kcl_b")).contains(BOB);
    }

    @Test
    void an_owner_added_in_a_rolled_back_transaction_is_not_there() {
        assertThatThrownBy(() -> ports.transactions().inTransaction(() -> {
            access.addOwner("kcl_a", ALICE);
            throw new IllegalStateException("refused");
        }));
        assertThat(access.owner("kcl_a")).isEmpty();
    }
}
