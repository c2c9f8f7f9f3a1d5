package com.bettercompute.bootstrap;

import com.bettercompute.adapters.http.JoseIdTokenSigner;
import com.bettercompute.adapters.persistence.Database;
import com.bettercompute.adapters.persistence.KeyEncryptionKey;
import com.bettercompute.application.port.SigningKeyRepository;
import com.bettercompute.application.port.SigningKeyRepository.SigningKey;
import com.bettercompute.application.signin.SignIn;
import com.bettercompute.application.signin.SigningKeySchedule;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * The ID token signer of a server (docs/decisions/sessions-and-signing-keys.md): its keys in the database, sealed
 * with the key-encryption key the configuration gives ({@code --key-encryption-key}), else the one kept in the
 * data directory (made at the first start, owner-only), else, with neither (a server built in code: tests, load
 * runs), one this process makes and holds alone. A replica whose key-encryption key is not the one the database's
 * keys were sealed with does not start. Signing keys an earlier version kept in a plain file of the data directory are
 * moved into the database, sealed, and the file removed.
 */
final class SignInKeys {
    private static final Logger LOG = LoggerFactory.getLogger(SignInKeys.class);
    /** How long a key signs before the next one takes over. */
    static final Duration SIGN_FOR = Duration.ofDays(30);
    /** How long a new key is published before it signs: well over the JWKS's five minutes of caching. */
    static final Duration PUBLISH_AHEAD = Duration.ofHours(1);
    /** How long a key stays published once it stopped signing: its last tokens' lifetime and five minutes for clocks that disagree. */
    static final Duration KEEP_AFTER = SignIn.ID_TOKEN_LIFETIME.plusMinutes(5);
    static final SigningKeySchedule SCHEDULE = new SigningKeySchedule(SIGN_FOR, PUBLISH_AHEAD, KEEP_AFTER);
    /** Where the embedded default keeps its key-encryption key, under the data directory. */
    static final Path KEY_FILE = Path.of("secrets", "key-encryption-key");
    /** Where an earlier version kept the signing keys in plain text, under the data directory. */
    static final Path FORMER_KEYS_FILE = Path.of("oidc", "signing-keys.jwks");

    /**
     * The key of a server given neither a key-encryption key nor a data directory (built in code: tests, load
     * runs): made once per process, so servers started again in the process open the keys, and no other process can.
     */
    private static final KeyEncryptionKey PROCESS_KEY = KeyEncryptionKey.random();

    private SignInKeys() {}

    /**
     * The signer of {@code config}'s server on {@code db}.
     *
     * @throws IllegalArgumentException when the key-encryption key cannot be read, or is not the one the
     *         database's keys were sealed with (the message says what to do, naming the keys' ids only)
     */
    static JoseIdTokenSigner signer(ServerConfig config, Database db, Clock clock) {
        KeyEncryptionKey kek;
        if (config.keyEncryptionKey() != null) {
            kek = config.keyEncryptionKey();
        } else if (config.dataDir() != null) {
            kek = keptIn(config.dataDir().resolve(KEY_FILE));
        } else {
            kek = PROCESS_KEY;
            LOG.info("no key-encryption key and no data directory: the ID token signing keys are sealed with key-encryption key {},"
                    + " which this process made and holds alone", kek.id());
        }
        SigningKeyRepository keys = db.newSigningKeyRepository(kek);
        try {
            if (config.dataDir() != null) {
                moveFormerKeys(config.dataDir().resolve(FORMER_KEYS_FILE), keys);
            }
            return JoseIdTokenSigner.open(keys, clock, SCHEDULE);
        } catch (SigningKeyRepository.SealedWithAnotherKey e) {
            throw new IllegalArgumentException(e.getMessage() + ". Every replica on one database needs the same key-encryption key:"
                    + " give this one the others' with --key-encryption-key or BC_KEY_ENCRYPTION_KEY"
                    + (config.keyEncryptionKey() == null && config.dataDir() != null
                    ? " (it read " + config.dataDir().resolve(KEY_FILE) + ")" : ""), e);
        }
    }

    /** The key of an owner-only file, which is made (with a new random key) when it does not exist. */
    static KeyEncryptionKey keptIn(Path file) {
        try {
            if (!Files.exists(file)) {
                make(file);
            }
            if (Files.getFileAttributeView(file, java.nio.file.attribute.PosixFileAttributeView.class) != null) {
                Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
                if (!Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE).containsAll(permissions)) {
                    throw new IllegalArgumentException(file + " holds the key-encryption key and may be read by others ("
                            + PosixFilePermissions.toString(permissions) + "): make it the owner's alone (chmod 600)");
                }
            }
            return KeyEncryptionKey.fromBase64(Files.readString(file, StandardCharsets.US_ASCII), "the key-encryption key in " + file);
        } catch (IOException e) {
            throw new IllegalArgumentException("the key-encryption key in " + file + " cannot be read or made: " + e.getMessage(), e);
        }
    }

    /** A new random key in {@code file}, owner-only, written whole or not at all; another process's file made first wins. */
    private static void make(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        try {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: its own access rules apply
        }
        Path temp = Files.createTempFile(dir, ".key-encryption-key", ".tmp");
        try {
            try {
                Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException e) {
                // as above
            }
            try (var channel = java.nio.channels.FileChannel.open(temp, java.nio.file.StandardOpenOption.WRITE)) {
                channel.write(java.nio.ByteBuffer.wrap((KeyEncryptionKey.random().base64() + "\n").getBytes(StandardCharsets.US_ASCII)));
                channel.force(true);
            }
            try {
                // a hard link is made whole or not at all, and never replaces a file another process made meanwhile
                Files.createLink(file, temp);
            } catch (UnsupportedOperationException e) {
                Files.move(temp, file);
            }
            LOG.info("key-encryption key made in {} (owner-only): every replica on this database needs the same one", file);
        } catch (FileAlreadyExistsException e) {
            // another process made it first: its key is the one
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /**
     * The signing keys an earlier version kept in a plain file, moved into the database (sealed) when it holds no
     * keys yet, and the file removed either way: a private key in plain text is left nowhere.
     */
    static void moveFormerKeys(Path file, SigningKeyRepository keys) {
        if (!Files.exists(file)) {
            return;
        }
        try {
            List<RSAKey> former = new ArrayList<>();
            try {
                for (JWK jwk : JWKSet.parse(Files.readString(file, StandardCharsets.UTF_8)).getKeys()) {
                    if (jwk instanceof RSAKey rsa && rsa.isPrivate() && rsa.getIssueTime() != null) {
                        former.add(rsa);
                    }
                }
            } catch (ParseException e) {
                // the parser's message may quote the file's text: name the file only
                LOG.warn("{} is not a JWK set: removed without moving its keys", file);
            }
            if (keys.all().isEmpty() && !former.isEmpty()) {
                former.sort(Comparator.comparing(RSAKey::getIssueTime));
                long generation = 1;
                for (RSAKey k : former) {
                    keys.add(new SigningKey(generation++, k.getKeyID(), k.toJSONString(), k.getIssueTime().toInstant(), k.getIssueTime().toInstant()));
                }
                LOG.info("ID token signing keys {} moved from {} into the database (sealed)", former.stream().map(RSAKey::getKeyID).toList(), file);
            }
            Files.delete(file);
            LOG.info("{} removed: the signing keys are kept in the database", file);
        } catch (IOException e) {
            throw new UncheckedIOException("the former signing keys in " + file + " cannot be read or removed", e);
        }
    }
}
