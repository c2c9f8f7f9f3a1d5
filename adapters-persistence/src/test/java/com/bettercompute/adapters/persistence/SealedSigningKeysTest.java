package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.SigningKeyRepository;
import com.bettercompute.application.port.SigningKeyRepository.SealedWithAnotherKey;
import com.bettercompute.application.port.SigningKeyRepository.SigningKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The signing keys at rest, on H2 and PostgreSQL: the table holds the key pair sealed, never its text; a replica
 * given another key-encryption key is refused and told the keys' ids, never their text; a sealed value moved to
 * another row does not open there.
 */
class SealedSigningKeysTest {
    static final Instant T0 = Instant.parse("2026-03-01T10:15:30Z");
    static final String PRIVATE = "{\"kty\":\"RSA\",\"d\":\"the-private-exponent-3f9a\",\"p\":\"first-prime-77c1\"}";

    private final List<Backend<Database>> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(Backend::close);
    }

    private Database open(String engine) {
        Function<Database, Database> itself = db -> db;
        Backend<Database> b = engine.equals("h2") ? Backend.h2(itself) : Backend.postgres(itself);
        opened.add(b);
        return b.port();
    }

    private static String rows(Database db) {
        return db.jdbi().withHandle(h -> h.createQuery("SELECT * FROM oidc_signing_keys").mapToMap().list()).toString();
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"h2", "postgresql"})
    void the_table_holds_the_key_sealed_and_the_same_key_encryption_key_opens_it(String engine) {
        Database db = open(engine);
        KeyEncryptionKey kek = KeyEncryptionKey.random();
        db.newSigningKeyRepository(kek).add(new SigningKey(1, "k1", PRIVATE, T0, T0));

        String rows = rows(db);
        assertThat(rows).contains("k1", kek.id()).doesNotContain("the-private-exponent-3f9a", "first-prime-77c1", "kty", kek.base64());
        assertThat(db.newSigningKeyRepository(kek).all()).as("another replica with the same key")
                .containsExactly(new SigningKey(1, "k1", PRIVATE, T0, T0));
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"h2", "postgresql"})
    void a_replica_with_another_key_encryption_key_is_refused_with_the_ids_and_nothing_of_either_key(String engine) {
        Database db = open(engine);
        KeyEncryptionKey kek = KeyEncryptionKey.random();
        KeyEncryptionKey other = KeyEncryptionKey.random();
        db.newSigningKeyRepository(kek).add(new SigningKey(1, "k1", PRIVATE, T0, T0));
        SigningKeyRepository wrong = db.newSigningKeyRepository(other);

        assertThatThrownBy(wrong::all).isInstanceOf(SealedWithAnotherKey.class)
                .hasMessageContaining(kek.id()).hasMessageContaining(other.id()).hasMessageContaining("k1")
                .message().doesNotContain(kek.base64(), other.base64(), "the-private-exponent-3f9a");
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"h2", "postgresql"})
    void a_sealed_key_moved_to_another_row_does_not_open_there(String engine) {
        Database db = open(engine);
        KeyEncryptionKey kek = KeyEncryptionKey.random();
        SigningKeyRepository keys = db.newSigningKeyRepository(kek);
        keys.add(new SigningKey(1, "k1", PRIVATE, T0, T0));
        keys.add(new SigningKey(2, "k2", PRIVATE.replace("3f9a", "0000"), T0, T0));
        db.jdbi().useHandle(h -> h.execute("UPDATE oidc_signing_keys SET sealed_key = (SELECT sealed_key FROM oidc_signing_keys WHERE generation = 1)"
                + " WHERE generation = 2"));

        assertThatThrownBy(keys::all).isInstanceOf(IllegalStateException.class).hasMessageContaining("altered")
                .message().doesNotContain("the-private-exponent");
    }
}
