package com.bettercompute.adapters.persistence;

import com.bettercompute.application.port.SigningKeyRepository;
import org.jdbi.v3.core.Jdbi;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

/**
 * {@link SigningKeyRepository} on {@code oidc_signing_keys} (V86). Each key pair is sealed with the replica's
 * {@link KeyEncryptionKey} (AES-256-GCM, authenticated with the row's generation and kid, so a sealed value moved
 * to another row does not open), and the row names the key-encryption key by its id: a replica given another key
 * refuses to read rather than fail on each key, and says which ids differ.
 *
 * <p>{@link #version()} costs no query while the replica hears the others' writes ({@link ChangeSignal}, moved by
 * the table's trigger, V87); otherwise it reads the newest generation.
 */
public final class JdbiSigningKeyRepository implements SigningKeyRepository {
    private final Db db;
    private final KeyEncryptionKey kek;
    private final ChangeSignal changes;

    JdbiSigningKeyRepository(Jdbi jdbi, KeyEncryptionKey kek, ChangeSignal changes) {
        this.db = new Db(jdbi);
        this.kek = kek;
        this.changes = changes;
    }

    private record Row(long generation, String kid, Instant createdAt, Instant signsFrom, String sealedWith, String sealedKey) {}

    @Override
    public List<SigningKey> all() {
        List<Row> rows = db.call("reading the signing keys", h -> h.createQuery("SELECT generation, kid, created_at, signs_from,"
                        + " sealed_with, sealed_key FROM oidc_signing_keys ORDER BY generation")
                .map((rs, ctx) -> new Row(rs.getLong("generation"), rs.getString("kid"), Times.instant(rs, "created_at"),
                        Times.instant(rs, "signs_from"), rs.getString("sealed_with"), rs.getString("sealed_key"))).list());
        for (Row r : rows) {
            if (!r.sealedWith().equals(kek.id())) {
                throw new SealedWithAnotherKey("the ID token signing key " + r.kid() + " in the database was sealed with the key-encryption key "
                        + r.sealedWith() + ", and this replica was given the key-encryption key " + kek.id());
            }
        }
        return rows.stream().map(r -> new SigningKey(r.generation(), r.kid(),
                new String(kek.open(r.sealedKey(), context(r.generation(), r.kid())), StandardCharsets.UTF_8), r.createdAt(), r.signsFrom()))
                .toList();
    }

    @Override
    public boolean add(SigningKey key) {
        String sealed = kek.seal(key.privateJwk().getBytes(StandardCharsets.UTF_8), context(key.generation(), key.kid()));
        return db.inTransaction("adding a signing key", h -> {
            int added = h.createUpdate("INSERT INTO oidc_signing_keys (generation, kid, created_at, signs_from, sealed_with, sealed_key)"
                            + " VALUES (:generation, :kid, :created_at, :signs_from, :sealed_with, :sealed_key) ON CONFLICT DO NOTHING")
                    .bind("generation", key.generation()).bind("kid", key.kid())
                    .bindByType("created_at", key.createdAt(), Instant.class).bindByType("signs_from", key.signsFrom(), Instant.class)
                    .bind("sealed_with", kek.id()).bind("sealed_key", sealed).execute();
            // once committed: a reader must not keep what it read before the commit under the number that follows it
            h.afterCommit(changes::committed);
            return added == 1;
        });
    }

    @Override
    public int removeBefore(long generation) {
        return db.inTransaction("removing retired signing keys", h -> {
            int removed = h.createUpdate("DELETE FROM oidc_signing_keys WHERE generation < :generation")
                    .bind("generation", generation).execute();
            h.afterCommit(changes::committed);
            return removed;
        });
    }

    @Override
    public long version() {
        long epoch = changes.current();
        if (epoch != ChangeSignal.UNTRUSTED) {
            return epoch;
        }
        return db.call("reading the signing keys' version", h -> h.createQuery("SELECT COALESCE(MAX(generation), 0) FROM oidc_signing_keys")
                .mapTo(Long.class).one());
    }

    /** What a sealed key is bound to: its row, so a sealed value copied to another row does not open there. */
    private static String context(long generation, String kid) {
        return "oidc_signing_keys generation " + generation + " kid " + kid;
    }
}
