package com.bettercompute.bootstrap;

import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.adapters.persistence.KeyEncryptionKey;
import com.bettercompute.application.port.SigningKeyRepository;
import com.bettercompute.application.port.SigningKeyRepository.SigningKey;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Where a server's signing keys come from: the key-encryption key made once in the data directory (owner-only)
 * and read again, a file others may read or that is not a key refused, a key of the process with neither a key
 * nor a data directory, and an earlier version's plain key file moved into the database and removed.
 */
class SignInKeysTest {
    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-06-01T00:00:00Z"), ZoneOffset.UTC);

    final Database db = Database.open("jdbc:h2:mem:signin-keys-" + UUID.randomUUID());

    @AfterEach
    void close() {
        db.close();
    }

    @Test
    void the_key_encryption_key_is_made_once_owner_only_and_read_again(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("data").resolve(SignInKeys.KEY_FILE);

        KeyEncryptionKey made = SignInKeys.keptIn(file);

        assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.getPosixFilePermissions(file.getParent())).isEqualTo(PosixFilePermissions.fromString("rwx------"));
        assertThat(SignInKeys.keptIn(file).id()).isEqualTo(made.id());
        try (var files = Files.list(file.getParent())) {
            assertThat(files).as("no temporary file left").containsExactly(file);
        }
    }

    @Test
    void a_key_file_others_may_read_or_that_holds_no_key_stops_the_start_without_showing_it(@TempDir Path dir) throws Exception {
        Path open = dir.resolve("open");
        Files.writeString(open, KeyEncryptionKey.random().base64());
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> SignInKeys.keptIn(open)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("chmod 600");

        Path garbled = dir.resolve("garbled");
        Files.writeString(garbled, "not-a-key-9e1c");
        Files.setPosixFilePermissions(garbled, PosixFilePermissions.fromString("rw-------"));
        assertThatThrownBy(() -> SignInKeys.keptIn(garbled)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(garbled.toString()).message().doesNotContain("not-a-key-9e1c");
    }

    @Test
    void with_neither_a_key_nor_a_data_directory_a_key_of_this_process_seals_them_and_a_server_started_again_in_it_signs_on() throws Exception {
        ServerConfig config = ServerConfig.defaults();

        List<JWK> first = JWKSet.parse(SignInKeys.signer(config, db, CLOCK).publicKeys()).getKeys();
        List<JWK> again = JWKSet.parse(SignInKeys.signer(config, db, CLOCK).publicKeys()).getKeys();

        assertThat(first).hasSize(1).isEqualTo(again);
        assertThatThrownBy(() -> SignInKeys.signer(config.withKeyEncryptionKey(KeyEncryptionKey.random()), db, CLOCK))
                .as("another process's key").isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--key-encryption-key");
    }

    @Test
    void an_earlier_versions_key_file_is_moved_into_the_database_and_removed(@TempDir Path dir) throws Exception {
        // the newer key took over ten minutes ago: the older one is still published for the tokens it signed
        RSAKey older = key("old", CLOCK.instant().minus(java.time.Duration.ofDays(10)));
        RSAKey newer = key("new", CLOCK.instant().minus(java.time.Duration.ofMinutes(10)));
        Path file = Files.createDirectories(dir.resolve("oidc")).resolve("signing-keys.jwks");
        Files.writeString(file, new JWKSet(List.<JWK>of(newer, older)).toString(false));
        KeyEncryptionKey kek = KeyEncryptionKey.random();
        SigningKeyRepository keys = db.newSigningKeyRepository(kek);

        var signer = SignInKeys.signer(ServerConfig.defaults().withDataDir(dir).withKeyEncryptionKey(kek), db, CLOCK);

        assertThat(file).doesNotExist();
        List<SigningKey> kept = keys.all();
        assertThat(kept).extracting(SigningKey::kid).containsExactly("old", "new");
        assertThat(RSAKey.parse(kept.get(1).privateJwk())).isEqualTo(newer);
        assertThat(JWKSet.parse(signer.publicKeys()).getKeys()).extracting(JWK::getKeyID).containsExactlyInAnyOrder("old", "new");
        String token = signer.sign(new com.bettercompute.application.port.IdTokenSigner.IdToken("https://nc.example", "user:a", "aud",
                List.of("nc:view"), CLOCK.instant(), CLOCK.instant().plusSeconds(900)));
        assertThat(com.nimbusds.jwt.SignedJWT.parse(token).getHeader().getKeyID()).as("the newest moved key signs on").isEqualTo("new");
    }

    static RSAKey key(String kid, Instant issued) throws Exception {
        return new RSAKeyGenerator(2048).keyUse(KeyUse.SIGNATURE).algorithm(JWSAlgorithm.RS256).keyID(kid).issueTime(Date.from(issued)).generate();
    }
}
