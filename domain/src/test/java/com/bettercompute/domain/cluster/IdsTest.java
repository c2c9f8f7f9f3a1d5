package com.bettercompute.domain.cluster;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class IdsTest {
    @Test
    void a_cluster_id_is_derived_from_tenant_caller_and_key() {
        String id = Ids.clusterId("acme", "user:alice", "k1");
        assertThat(id).matches("kcl_[0-9a-hjkmnp-tv-z]{26}").isEqualTo(Ids.clusterId("acme", "user:alice", "k1"));
        assertThat(Ids.clusterId("acme", "user:bob", "k1")).isNotEqualTo(id);
        assertThat(Ids.clusterId("globex", "user:alice", "k1")).isNotEqualTo(id);
        assertThat(Ids.clusterId("acme", "user:alice", "k2")).isNotEqualTo(id);
        // parts cannot run into each other
        assertThat(Ids.clusterId("ab", "c", "k")).isNotEqualTo(Ids.clusterId("a", "bc", "k"));
    }

    @Test
    void the_provider_name_is_bc_k_and_24_characters_of_the_id() {
        String id = Ids.clusterId("acme", "user:alice", "k1");
        assertThat(Ids.providerName(id)).hasSize(29).startsWith("bc-k-").isEqualTo("bc-k-" + id.substring(4, 28));
    }

    @Test
    void base32_is_crockfords_alphabet_in_lower_case() {
        assertThat(Ids.base32(new byte[]{0, 0, 0, 0, 0}, 8)).isEqualTo("00000000");
        assertThat(Ids.base32(new byte[]{(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff}, 8)).isEqualTo("zzzzzzzz");
        assertThat(Ids.base32(new byte[]{0x08, 0x42, 0x10, (byte) 0x84, 0x21}, 8)).isEqualTo("11111111");
    }

    @Test
    void sha256_hex_is_the_standard_digest() {
        assertThat(Ids.sha256Hex("test")).isEqualTo("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
    }
}
