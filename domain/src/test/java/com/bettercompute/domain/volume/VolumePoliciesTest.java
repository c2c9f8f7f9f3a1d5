package com.bettercompute.domain.volume;

import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.cluster.Ids;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class VolumePoliciesTest {
    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

    static SharedVolume volume(VolumeState state, boolean deleteWithCluster) {
        String id = Ids.volumeId("kcl_0000000000000000000000000a");
        SharedVolume v = SharedVolume.forCluster(id, "acme", "kcl_0000000000000000000000000a", "train", "acct", "us-central1",
                "us-central1-a", Ids.volumeStorageName(id), 2048, T0);
        return v.withState(state, null, T0).withDeleteWithCluster(deleteWithCluster, T0);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "long before the change              | 2025-01-01T00:00:00Z        | 1024",
            "the last microsecond before it      | 2026-08-31T23:59:59.999999Z | 1024",
            "exactly at the change (UTC)         | 2026-09-01T00:00:00Z        | 2048",
            "after it                            | 2026-12-07T00:00:00Z        | 2048"})
    void a_volume_is_2_TiB_or_1_TiB_for_clusters_created_before_september_2026(String rule, String createdAt, int gib) {
        assertThat(VolumeSizePolicy.sizeGiB(Instant.parse(createdAt))).as(rule).isEqualTo(gib);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "no opt-in, no holder: preserved (the default)  | false | ''          | preserve",
            "no opt-in, a holder: preserved                 | false | node-a      | preserve",
            "opt-in, no holder: destroyed with the cluster  | true  | ''          | delete",
            "opt-in, a node holds it: preserved             | true  | node-a      | preserve",
            "opt-in, several hold it: preserved             | true  | node-a node-b | preserve"})
    void the_cluster_delete_preserves_the_volume_unless_opted_in_and_no_node_holds_it(String rule, boolean optIn, String holders,
                                                                                     String fate) {
        List<String> held = holders.isBlank() ? List.of() : Arrays.asList(holders.split(" "));
        VolumeFatePolicy.Fate decided = VolumeFatePolicy.whenClusterGone(volume(VolumeState.ATTACHED, optIn), held);
        assertThat(decided).as(rule).isInstanceOf(fate.equals("delete") ? VolumeFatePolicy.Fate.Delete.class
                : VolumeFatePolicy.Fate.Preserve.class);
        if (decided instanceof VolumeFatePolicy.Fate.Preserve p && !held.isEmpty() && optIn) {
            assertThat(p.why()).contains(held.get(0));
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", value = {
            "an API token, whatever the volume             | false | PRESERVED | right | ACCESS_DENIED | session-required",
            "an API token even on an attached one          | false | ATTACHED  | right | ACCESS_DENIED | session-required",
            "a person, attached: delete the cluster first  | true  | ATTACHED  | right | INVALID_STATE | volume-attached",
            "a person, being made with its cluster         | true  | PENDING   | right | INVALID_STATE | volume-attached",
            "a person, preserved, name typed exactly       | true  | PRESERVED | right | -             | accept",
            "a person, preserved, name mistyped            | true  | PRESERVED | wrong | INVALID_INPUT | confirmation-mismatch",
            "a person, preserved, label typed (not name)   | true  | PRESERVED | label | INVALID_INPUT | confirmation-mismatch",
            "a person, preserved, nothing typed            | true  | PRESERVED | -     | INVALID_INPUT | confirmation-mismatch",
            "a person, delete accepted before              | true  | DELETING  | wrong | -             | again",
            "a person, deleted                             | true  | DELETED   | right | NOT_FOUND     | not-found",
            "a person, never made                          | true  | FAILED    | right | NOT_FOUND     | not-found"})
    void a_delete_is_a_persons_typed_confirmation_on_a_volume_no_cluster_holds(String rule, boolean viaSession, VolumeState state,
                                                                              String typed, ErrorCode code, String outcome) {
        SharedVolume v = volume(state, false);
        String text = typed == null ? null : switch (typed) {
            case "right" -> v.storageName();
            case "label" -> v.label();
            default -> v.storageName() + "x";
        };
        VolumeDeletePolicy.Decision d = VolumeDeletePolicy.decide(v, viaSession, text);
        switch (outcome) {
            case "accept" -> assertThat(d).as(rule).isInstanceOf(VolumeDeletePolicy.Decision.Accept.class);
            case "again" -> assertThat(d).as(rule).isInstanceOf(VolumeDeletePolicy.Decision.AlreadyAccepted.class);
            default -> {
                assertThat(d).as(rule).isInstanceOf(VolumeDeletePolicy.Decision.Refuse.class);
                VolumeDeletePolicy.Decision.Refuse r = (VolumeDeletePolicy.Decision.Refuse) d;
                assertThat(r.code()).as(rule).isEqualTo(code);
                assertThat(r.reason()).as(rule).isEqualTo(outcome);
                if (outcome.equals("volume-attached")) {
                    assertThat(r.message()).as("names the cluster").contains("train");
                }
            }
        }
    }

    @Test
    void the_label_is_the_cluster_and_shared_and_the_storage_name_shows_when_they_differ() {
        SharedVolume v = volume(VolumeState.ATTACHED, false);
        assertThat(v.label()).isEqualTo("train-shared");
        assertThat(v.storageName()).matches("bc-v-[0-9a-hjkmnp-tv-z]{24}").hasSizeLessThanOrEqualTo(63);
        assertThat(v.showsStorageName()).isTrue();
        SharedVolume same = new SharedVolume(v.id(), v.tenantId(), v.clusterId(), "train", v.providerAccountId(), v.region(),
                v.location(), "train-shared", v.path(), v.sizeGiB(), v.state(), null, false, null, null, null, null, 1, T0, T0, null);
        assertThat(same.showsStorageName()).isFalse();
    }

    @Test
    void the_volume_id_and_storage_name_derive_from_the_cluster() {
        assertThat(Ids.volumeId("kcl_a")).isEqualTo(Ids.volumeId("kcl_a")).isNotEqualTo(Ids.volumeId("kcl_b"))
                .matches("kvol_[0-9a-hjkmnp-tv-z]{26}");
    }
}
