package com.bettercompute.adapters.http;

import com.bettercompute.application.port.IdTokenSigner;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * {@link IdTokenSigner} on Nimbus JOSE+JWT: RS256 with 2048-bit RSA keys. The keys are made once and kept
 * in an owner-only file (a JWK set, private halves included) so sign-ins survive a restart; without a file
 * (tests) they live in memory. The newest key signs; after {@code rotateAfter} a new key is made and the
 * previous one stays published until no token it signed can still be alive (one ID token lifetime is far
 * shorter than a rotation period, so keeping one previous key is enough). No key is ever logged; only
 * {@code kid}s are.
 */
public final class JoseIdTokenSigner implements IdTokenSigner {
    private static final Logger LOG = LoggerFactory.getLogger(JoseIdTokenSigner.class);
    /** A key is made this large: what RFC 7518 asks of RS256 at least. */
    static final int KEY_BITS = 2048;

    private final Path file;
    private final Clock clock;
    private final Duration rotateAfter;
    /** Newest first; at most the signing key and the one before it. */
    private volatile List<RSAKey> keys;

    private JoseIdTokenSigner(Path file, Clock clock, Duration rotateAfter, List<RSAKey> keys) {
        this.file = file;
        this.clock = clock;
        this.rotateAfter = rotateAfter;
        this.keys = keys;
    }

    /**
     * The keys of {@code file} (made and written, owner-only, when the file does not exist yet); null keeps
     * them in memory only.
     */
    public static JoseIdTokenSigner open(Path file, Clock clock, Duration rotateAfter) {
        List<RSAKey> kept = file != null && Files.exists(file) ? read(file) : List.of();
        JoseIdTokenSigner signer = new JoseIdTokenSigner(file, clock, rotateAfter, kept);
        signer.rotateIfDue();
        return signer;
    }

    @Override
    public String sign(IdToken token) {
        RSAKey key = rotateIfDue();
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(token.issuer())
                .subject(token.subject())
                .audience(token.audience())
                .claim("groups", token.groups())
                .issueTime(Date.from(token.issuedAt()))
                .notBeforeTime(Date.from(token.issuedAt()))
                .expirationTime(Date.from(token.expiresAt()))
                .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).type(JOSEObjectType.JWT).build(), claims);
        try {
            jwt.sign(new RSASSASigner(key));
        } catch (JOSEException e) {
            throw new IllegalStateException("signing an ID token failed with key " + key.getKeyID(), e);
        }
        return jwt.serialize();
    }

    /** The public halves of the kept keys, as the JWKS document answers them. */
    public Map<String, Object> publicKeys() {
        return new JWKSet(new ArrayList<JWK>(keys)).toJSONObject(true);
    }

    /** The {@code kid} of the key that signs now. */
    String signingKeyId() {
        return keys.get(0).getKeyID();
    }

    /** The signing key, a new one first when the newest is older than {@code rotateAfter}. */
    private synchronized RSAKey rotateIfDue() {
        Instant now = clock.instant();
        List<RSAKey> current = keys;
        if (!current.isEmpty() && now.isBefore(current.get(0).getIssueTime().toInstant().plus(rotateAfter))) {
            return current.get(0);
        }
        RSAKey fresh;
        try {
            fresh = new RSAKeyGenerator(KEY_BITS).keyUse(KeyUse.SIGNATURE).algorithm(JWSAlgorithm.RS256)
                    .keyID(now.truncatedTo(ChronoUnit.SECONDS).getEpochSecond() + "-" + UUID.randomUUID().toString().substring(0, 8))
                    .issueTime(Date.from(now.truncatedTo(ChronoUnit.SECONDS))).generate();
        } catch (JOSEException e) {
            throw new IllegalStateException("making a signing key failed", e);
        }
        List<RSAKey> next = current.isEmpty() ? List.of(fresh) : List.of(fresh, current.get(0));
        if (file != null) {
            write(file, next);
        }
        keys = next;
        LOG.info("ID token signing key {} made{}", fresh.getKeyID(), current.isEmpty() ? "" : "; " + current.get(0).getKeyID() + " kept until its tokens expire");
        return fresh;
    }

    private static List<RSAKey> read(Path file) {
        try {
            List<RSAKey> read = new ArrayList<>();
            for (JWK jwk : JWKSet.parse(Files.readString(file, StandardCharsets.UTF_8)).getKeys()) {
                if (jwk instanceof RSAKey rsa && rsa.isPrivate() && rsa.getIssueTime() != null) {
                    read.add(rsa);
                }
            }
            read.sort(Comparator.comparing((RSAKey k) -> k.getIssueTime()).reversed());
            return List.copyOf(read);
        } catch (IOException e) {
            throw new UncheckedIOException("the signing keys in " + file + " cannot be read", e);
        } catch (ParseException e) {
            // the message of a parse failure may quote the file's text: name the file only
            throw new IllegalStateException("the signing keys in " + file + " are not a JWK set");
        }
    }

    /** Writes the keys to a new owner-only file beside {@code file} and moves it over: a crash leaves the old or the new set. */
    private static void write(Path file, List<RSAKey> keys) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path temp = dir.resolve(file.getFileName() + ".tmp");
            Files.deleteIfExists(temp);
            try {
                Files.createFile(temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException e) {
                Files.createFile(temp);
            } catch (FileAlreadyExistsException e) {
                throw new IllegalStateException("another process writes " + temp);
            }
            String json = new JWKSet(new ArrayList<JWK>(keys)).toString(false);
            try (var channel = java.nio.channels.FileChannel.open(temp, StandardOpenOption.WRITE)) {
                channel.write(java.nio.ByteBuffer.wrap(json.getBytes(StandardCharsets.UTF_8)));
                channel.force(true);
            }
            try {
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the signing keys cannot be written to " + file, e);
        }
    }
}
