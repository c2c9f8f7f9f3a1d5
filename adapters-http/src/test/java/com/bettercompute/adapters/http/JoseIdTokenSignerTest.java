package com.bettercompute.adapters.http;

import com.bettercompute.application.fakes.InMemorySigningKeyRepository;
import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.application.port.IdTokenSigner.IdToken;
import com.bettercompute.application.signin.SigningKeySchedule;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ID token signing keys on a store that replicas share (two signers on one in-memory store are two replicas
 * on one database): one key signs on both, a restart signs with it, a rotation made by one is published by both
 * before it signs, the old key stays published until its tokens have expired, a race to rotate makes one key,
 * and the JWKS holds public halves only.
 */
class JoseIdTokenSignerTest {
    static final SigningKeySchedule SCHEDULE = new SigningKeySchedule(Duration.ofDays(30), Duration.ofHours(1), Duration.ofMinutes(20));

    final MutableClock clock = new MutableClock();
    final InMemorySigningKeyRepository store = new InMemorySigningKeyRepository();

    IdToken token() {
        return new IdToken("https://nc.example", "user:alice@acme.example", "projects/p/locations/l/clusters/c",
                List.of("nc:view"), clock.instant(), clock.instant().plus(Duration.ofMinutes(15)));
    }

    static SignedJWT verified(String serialized, JoseIdTokenSigner signer) throws Exception {
        SignedJWT jwt = SignedJWT.parse(serialized);
        RSAKey key = (RSAKey) JWKSet.parse(signer.publicKeys()).getKeyByKeyId(jwt.getHeader().getKeyID());
        assertThat(key).as("key %s published", jwt.getHeader().getKeyID()).isNotNull();
        assertThat(jwt.verify(new RSASSAVerifier(key))).isTrue();
        return jwt;
    }

    static List<String> published(JoseIdTokenSigner signer) throws Exception {
        return JWKSet.parse(signer.publicKeys()).getKeys().stream().map(k -> k.getKeyID()).toList();
    }

    @Test
    void a_token_carries_the_claims_and_verifies_against_the_published_public_key() throws Exception {
        JoseIdTokenSigner signer = JoseIdTokenSigner.open(store, clock, SCHEDULE);

        SignedJWT jwt = verified(signer.sign(token()), signer);

        assertThat(jwt.getHeader().getAlgorithm().getName()).isEqualTo("RS256");
        assertThat(jwt.getJWTClaimsSet().getIssuer()).isEqualTo("https://nc.example");
        assertThat(jwt.getJWTClaimsSet().getSubject()).isEqualTo("user:alice@acme.example");
        assertThat(jwt.getJWTClaimsSet().getAudience()).containsExactly("projects/p/locations/l/clusters/c");
        assertThat(jwt.getJWTClaimsSet().getStringListClaim("groups")).containsExactly("nc:view");
        assertThat(jwt.getJWTClaimsSet().getExpirationTime().toInstant()).isEqualTo(clock.instant().plus(Duration.ofMinutes(15)));
        assertThat(JWKSet.parse(signer.publicKeys()).getKeys()).isNotEmpty().allMatch(k -> !k.isPrivate());
    }

    @Test
    void replicas_on_one_store_sign_with_one_key_publish_the_same_keys_and_a_restart_signs_with_it_too() throws Exception {
        JoseIdTokenSigner one = JoseIdTokenSigner.open(store, clock, SCHEDULE);
        JoseIdTokenSigner other = JoseIdTokenSigner.open(store, clock, SCHEDULE);

        String byOne = one.sign(token());
        String byOther = other.sign(token());

        assertThat(other.signingKeyId()).isEqualTo(one.signingKeyId());
        assertThat(store.all()).hasSize(1);
        verified(byOne, other);
        verified(byOther, one);
        assertThat(published(one)).isEqualTo(published(other));
        assertThat(JoseIdTokenSigner.open(store, clock, SCHEDULE).signingKeyId()).as("after a restart").isEqualTo(one.signingKeyId());
    }

    @Test
    void a_rotation_one_replica_makes_is_published_by_both_before_it_signs_and_the_old_key_until_its_tokens_expire() throws Exception {
        JoseIdTokenSigner one = JoseIdTokenSigner.open(store, clock, SCHEDULE);
        JoseIdTokenSigner other = JoseIdTokenSigner.open(store, clock, SCHEDULE);
        String firstKid = one.signingKeyId();

        clock.advance(Duration.ofDays(30).minusHours(1));
        List<String> afterRotation = published(one);
        assertThat(afterRotation).as("the next key published beside the signing one").hasSize(2).contains(firstKid);
        assertThat(published(other)).isEqualTo(afterRotation);
        String newKid = afterRotation.stream().filter(k -> !k.equals(firstKid)).findFirst().orElseThrow();
        assertThat(other.signingKeyId()).as("published ahead, not signing yet").isEqualTo(firstKid);

        clock.advance(Duration.ofMinutes(59));
        String lastOfTheOld = one.sign(token());
        clock.advance(Duration.ofMinutes(1));
        assertThat(one.signingKeyId()).isEqualTo(newKid);
        assertThat(other.signingKeyId()).isEqualTo(newKid);
        verified(other.sign(token()), one);
        verified(lastOfTheOld, other);

        clock.advance(Duration.ofMinutes(19));
        verified(lastOfTheOld, other);
        clock.advance(Duration.ofMinutes(1));
        assertThat(published(other)).containsExactly(newKid);
        assertThat(published(one)).containsExactly(newKid);
        assertThat(store.all()).extracting(k -> k.kid()).containsExactly(newKid);
    }

    @Test
    void replicas_that_find_a_rotation_due_at_once_make_one_key() throws Exception {
        List<JoseIdTokenSigner> replicas = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            replicas.add(JoseIdTokenSigner.open(store, clock, SCHEDULE));
        }
        clock.advance(Duration.ofDays(30));
        CyclicBarrier together = new CyclicBarrier(replicas.size());
        ExecutorService pool = Executors.newFixedThreadPool(replicas.size());
        try {
            List<Future<List<String>>> seen = new ArrayList<>();
            for (JoseIdTokenSigner r : replicas) {
                seen.add(pool.submit(() -> {
                    together.await(20, TimeUnit.SECONDS);
                    r.sign(token());
                    return published(r);
                }));
            }
            for (Future<List<String>> f : seen) {
                assertThat(f.get(120, TimeUnit.SECONDS)).hasSize(2);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(store.all()).hasSize(2);
    }
}
