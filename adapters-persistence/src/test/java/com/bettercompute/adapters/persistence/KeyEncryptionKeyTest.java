package com.bettercompute.adapters.persistence;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The key-encryption key: read from base64 as operators make it, named by an id that reveals nothing, sealing with AES-GCM. */
class KeyEncryptionKeyTest {
    static final String GOOD = Base64.getEncoder().encodeToString("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII));

    @ParameterizedTest(name = "\"{0}\" is refused")
    @ValueSource(strings = {"", "   ", "not base64 at all!", "c2hvcnQ=", "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWYwMQ=="})
    void anything_but_32_bytes_in_base64_is_refused_naming_the_source_never_the_text(String text) {
        assertThatThrownBy(() -> KeyEncryptionKey.fromBase64(text, "option --key-encryption-key"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("option --key-encryption-key must be 32 random bytes in base64")
                .message().satisfies(m -> {
                    if (!text.isBlank()) {
                        assertThat(m).doesNotContain(text.strip());
                    }
                });
    }

    @Test
    void the_standard_and_url_safe_alphabets_with_or_without_padding_read_as_the_same_key() {
        KeyEncryptionKey standard = KeyEncryptionKey.fromBase64(GOOD, "test");
        String urlSafe = Base64.getUrlEncoder().withoutPadding().encodeToString(Base64.getDecoder().decode(GOOD));

        assertThat(KeyEncryptionKey.fromBase64(" " + urlSafe + "\n", "test").id()).isEqualTo(standard.id());
        assertThat(standard.base64()).isEqualTo(GOOD);
    }

    @Test
    void the_id_tells_keys_apart_and_shows_nothing_of_the_key() {
        KeyEncryptionKey a = KeyEncryptionKey.fromBase64(GOOD, "test");
        KeyEncryptionKey b = KeyEncryptionKey.random();

        assertThat(a.id()).hasSize(16).isNotEqualTo(b.id()).isEqualTo(KeyEncryptionKey.fromBase64(GOOD, "test").id());
        assertThat(a.toString()).contains(a.id()).doesNotContain(GOOD);
    }

    @Test
    void what_is_sealed_opens_with_the_same_key_and_context_only() {
        KeyEncryptionKey kek = KeyEncryptionKey.random();
        byte[] secret = "a private key".getBytes(StandardCharsets.UTF_8);

        String sealed = kek.seal(secret, "row 1");

        assertThat(sealed).as("a fresh nonce each time").isNotEqualTo(kek.seal(secret, "row 1"));
        assertThat(kek.open(sealed, "row 1")).isEqualTo(secret);
        assertThatThrownBy(() -> kek.open(sealed, "row 2")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> KeyEncryptionKey.random().open(sealed, "row 1")).isInstanceOf(IllegalStateException.class);
    }
}
