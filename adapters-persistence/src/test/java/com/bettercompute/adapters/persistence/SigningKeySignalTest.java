package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.SigningKeyRepository;
import com.bettercompute.application.port.SigningKeyRepository.SigningKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rotation one replica makes reaches the other replicas' {@link SigningKeyRepository#version()} on PostgreSQL:
 * through the table's notification while a replica listens (no query), by reading the newest generation while it
 * does not. Each replica is a {@link Database} of its own on one PostgreSQL, with the same key-encryption key.
 */
class SigningKeySignalTest {
    static final Instant T0 = Instant.parse("2026-03-01T10:15:30Z");

    private final Replicas replicas = new Replicas();

    @AfterEach
    void close() throws Exception {
        replicas.close();
    }

    @Test
    void a_key_one_replica_adds_moves_the_version_a_listening_replica_reads_and_the_new_key_is_there() throws Exception {
        KeyEncryptionKey kek = KeyEncryptionKey.random();
        SigningKeyRepository first = replicas.postgres().newSigningKeyRepository(kek);
        Database secondDb = replicas.postgres();
        SigningKeyRepository second = secondDb.newSigningKeyRepository(kek);

        long unheard = second.version();
        first.add(new SigningKey(1, "k1", "{\"d\":\"x\"}", T0, T0));
        assertThat(second.version()).as("not listening: the newest generation is read").isNotEqualTo(unheard);

        long read = second.version();
        replicas.listen(secondDb);
        long listening = Replicas.awaitChange(second::version, read, "the replica listens");
        assertThat(second.version()).as("nothing added: the same number, without a query").isEqualTo(listening);

        first.add(new SigningKey(2, "k2", "{\"d\":\"y\"}", T0, T0.plusSeconds(3600)));
        Replicas.awaitChange(second::version, listening, "the other replica's key is heard");
        assertThat(second.all()).extracting(SigningKey::kid).containsExactly("k1", "k2");
    }
}
