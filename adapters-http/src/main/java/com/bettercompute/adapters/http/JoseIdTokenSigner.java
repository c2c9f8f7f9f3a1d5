package com.bettercompute.adapters.http;

import com.bettercompute.application.port.IdTokenSigner;
import com.bettercompute.application.port.SigningKeyRepository;
import com.bettercompute.application.port.SigningKeyRepository.SigningKey;
import com.bettercompute.application.signin.SigningKeySchedule;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
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

import java.text.ParseException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Date;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.security.SecureRandom;

/**
 * {@link IdTokenSigner} on Nimbus JOSE+JWT: RS256 with 2048-bit RSA keys, kept in a {@link SigningKeyRepository}
 * that every replica shares, so every replica signs with the same key and publishes the same keys, and a restart
 * signs with the key it signed with before. Which key signs and which are published follows the
 * {@link SigningKeySchedule} on this replica's clock: whichever replica first finds a rotation due makes the next
 * key (one generation, one key: a replica that loses the race uses the winner's), it is published at once and
 * signs only once it has been published long enough, and a key that stopped signing stays published until every
 * token it signed has expired, then is removed. The keys are read again only when the repository's version moves
 * (another replica's rotation reaches this one through it) and kept meanwhile, parsed, in a Caffeine cache.
 *
 * <p>No key is ever logged; only {@code kid}s are.
 */
public final class JoseIdTokenSigner implements IdTokenSigner {
    private static final Logger LOG = LoggerFactory.getLogger(JoseIdTokenSigner.class);
    /** A key is made this large: what RFC 7518 asks of RS256 at least. */
    static final int KEY_BITS = 2048;
    /** Tries at making a due key before giving up: each lost race reads the winner's key, which is then not due. */
    private static final int ROTATION_ATTEMPTS = 3;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** The kept keys of one version of the repository, their key pairs parsed once. */
    private record Kept(List<SigningKey> keys, Map<String, RSAKey> byKid) {}

    private final SigningKeyRepository store;
    private final Clock clock;
    private final SigningKeySchedule schedule;
    private final LoadingCache<Long, Kept> read;

    private JoseIdTokenSigner(SigningKeyRepository store, Clock clock, SigningKeySchedule schedule) {
        this.store = store;
        this.clock = clock;
        this.schedule = schedule;
        this.read = Caffeine.newBuilder().maximumSize(1).build(version -> load());
    }

    /**
     * The signer on the shared keys of {@code store}, with a key that signs from now on made when there is none.
     *
     * @throws SigningKeyRepository.SealedWithAnotherKey when this replica cannot open the kept keys: it must not start
     */
    public static JoseIdTokenSigner open(SigningKeyRepository store, Clock clock, SigningKeySchedule schedule) {
        JoseIdTokenSigner signer = new JoseIdTokenSigner(store, clock, schedule);
        signer.plan();
        return signer;
    }

    @Override
    public String sign(IdToken token) {
        SigningKeySchedule.Plan plan = plan();
        SigningKey key = plan.signing().orElseThrow(() -> new IllegalStateException(
                "no ID token signing key signs yet: the only kept keys are published ahead of their time"));
        RSAKey pair = kept().byKid().get(key.kid());
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(token.issuer())
                .subject(token.subject())
                .audience(token.audience())
                .claim("groups", token.groups())
                .issueTime(Date.from(token.issuedAt()))
                .notBeforeTime(Date.from(token.issuedAt()))
                .expirationTime(Date.from(token.expiresAt()))
                .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.kid()).type(JOSEObjectType.JWT).build(), claims);
        try {
            jwt.sign(new RSASSASigner(pair));
        } catch (JOSEException e) {
            throw new IllegalStateException("signing an ID token failed with key " + key.kid(), e);
        }
        return jwt.serialize();
    }

    /** The public halves of the published keys (the one that signs, those ahead of it and those kept for their tokens), as the JWKS answers them. */
    public Map<String, Object> publicKeys() {
        SigningKeySchedule.Plan plan = plan();
        Map<String, RSAKey> byKid = kept().byKid();
        List<JWK> published = new ArrayList<>();
        for (SigningKey k : plan.published()) {
            RSAKey pair = byKid.get(k.kid());
            if (pair != null) {
                published.add(pair.toPublicJWK());
            }
        }
        return new JWKSet(published).toJSONObject(true);
    }

    /** The {@code kid} of the key that signs now. */
    String signingKeyId() {
        return plan().signing().map(SigningKey::kid).orElse(null);
    }

    private Kept kept() {
        // the version is read before the keys: a key added meanwhile moves it past what is kept under it
        return read.get(store.version());
    }

    /** The schedule's plan of the kept keys now, after making a due key and removing retired ones. */
    private SigningKeySchedule.Plan plan() {
        for (int attempt = 0; ; attempt++) {
            List<SigningKey> keys = kept().keys();
            Instant now = clock.instant();
            SigningKeySchedule.Plan plan = schedule.plan(keys, now);
            if (plan.nextSignsFrom().isPresent() && attempt < ROTATION_ATTEMPTS) {
                rotate(keys, now, plan.nextSignsFrom().get());
                continue;
            }
            if (!plan.retired().isEmpty() && !plan.published().isEmpty()) {
                int removed = store.removeBefore(plan.published().get(0).generation());
                if (removed > 0) {
                    LOG.info("ID token signing keys retired: {} (every token they signed has expired)",
                            plan.retired().stream().map(SigningKey::kid).toList());
                }
                read.invalidateAll();
            }
            return plan;
        }
    }

    /** Makes the next generation's key, unless another replica (whose key is then read) or thread made it first. */
    private synchronized void rotate(List<SigningKey> seen, Instant now, Instant signsFrom) {
        long generation = seen.isEmpty() ? 1 : seen.get(seen.size() - 1).generation() + 1;
        if (kept().keys().stream().anyMatch(k -> k.generation() >= generation)) {
            return; // made by another thread of this replica meanwhile
        }
        String kid = generation + "-" + HexFormat.of().formatHex(randomBytes());
        Instant created = now.truncatedTo(ChronoUnit.SECONDS);
        RSAKey pair;
        try {
            pair = new RSAKeyGenerator(KEY_BITS).keyUse(KeyUse.SIGNATURE).algorithm(JWSAlgorithm.RS256).keyID(kid)
                    .issueTime(Date.from(created)).generate();
        } catch (JOSEException e) {
            throw new IllegalStateException("making a signing key failed", e);
        }
        boolean added = store.add(new SigningKey(generation, kid, pair.toJSONString(), created, signsFrom.truncatedTo(ChronoUnit.SECONDS)));
        read.invalidateAll();
        if (added) {
            LOG.info("ID token signing key {} made (generation {}): published now, signs from {}", kid, generation,
                    signsFrom.truncatedTo(ChronoUnit.SECONDS));
        }
    }

    private static byte[] randomBytes() {
        byte[] bytes = new byte[4];
        RANDOM.nextBytes(bytes);
        return bytes;
    }

    private Kept load() {
        List<SigningKey> keys = store.all();
        Map<String, RSAKey> byKid = new LinkedHashMap<>();
        for (SigningKey k : keys) {
            try {
                byKid.put(k.kid(), RSAKey.parse(k.privateJwk()));
            } catch (ParseException e) {
                // the parser's message may quote the key's text: name the kid only
                throw new IllegalStateException("the kept signing key " + k.kid() + " is not an RSA JSON Web Key");
            }
        }
        return new Kept(keys, byKid);
    }
}
