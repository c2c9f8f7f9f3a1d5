package com.bettercompute.adapters.http;

import com.bettercompute.application.fakes.MutableClock;
import com.bettercompute.application.port.IdTokenSigner.IdToken;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ID token signing keys: made once and kept in an owner-only file (a restart signs with the same key),
 * rotated after the period with the previous key still published, the JWKS public only, and a token that
 * verifies against it.
 */
class JoseIdTokenSignerTest {
    static final Duration ROTATION = Duration.ofDays(30);

    final MutableClock clock = new MutableClock();

    IdToken token() {
        return new IdToken("https://nc.example", "user:alice@acme.example", "projects/p/locations/l/clusters/c",
                List.of("nc:view"), clock.instant(), clock.instant().plus(Duration.ofMinutes(15)));
    }

    static SignedJWT verified(String serialized, JoseIdTokenSigner signer) throws Exception {
        SignedJWT jwt = SignedJWT.parse(serialized);
        RSAKey key = (RSAKey) JWKSet.parse(signer.publicKeys()).getKeyByKeyId(jwt.getHeader().getKeyID());
        assertThat(key).isNotNull();
        assertThat(jwt.verify(new RSASSAVerifier(key))).isTrue();
        return jwt;
    }

    @Test
    void a_token_carries_the_claims_and_verifies_against_the_published_key() throws Exception {
        JoseIdTokenSigner signer = JoseIdTokenSigner.open(null, clock, ROTATION);

        SignedJWT jwt = verified(signer.sign(token()), signer);

        assertThat(jwt.getHeader().getAlgorithm().getName()).isEqualTo("RS256");
        assertThat(jwt.getJWTClaimsSet().getIssuer()).isEqualTo("https://nc.example");
        assertThat(jwt.getJWTClaimsSet().getSubject()).isEqualTo("user:alice@acme.example");
        assertThat(jwt.getJWTClaimsSet().getAudience()).containsExactly("projects/p/locations/l/clusters/c");
        assertThat(jwt.getJWTClaimsSet().getStringListClaim("groups")).containsExactly("nc:view");
        assertThat(jwt.getJWTClaimsSet().getExpirationTime().toInstant()).isEqualTo(clock.instant().plus(Duration.ofMinutes(15)));
        assertThat(JWKSet.parse(signer.publicKeys()).getKeys()).allMatch(k -> !k.isPrivate());
    }

    @Test
    void the_keys_are_kept_in_an_owner_only_file_and_a_restart_signs_with_the_same_key(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("oidc").resolve("signing-keys.jwks");
        JoseIdTokenSigner first = JoseIdTokenSigner.open(file, clock, ROTATION);
        String before = first.sign(token());

        JoseIdTokenSigner second = JoseIdTokenSigner.open(file, clock, ROTATION);

        assertThat(second.signingKeyId()).isEqualTo(first.signingKeyId());
        verified(before, second);
        assertThat(Files.getPosixFilePermissions(file)).isEqualTo(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
        try (var files = Files.list(file.getParent())) {
            assertThat(files).containsExactly(file);
        }
    }

    @Test
    void after_the_rotation_period_a_new_key_signs_and_the_previous_one_stays_published(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("signing-keys.jwks");
        JoseIdTokenSigner signer = JoseIdTokenSigner.open(file, clock, ROTATION);
        String old = signer.sign(token());
        String oldKid = signer.signingKeyId();

        clock.advance(ROTATION.plusSeconds(1));
        String fresh = signer.sign(token());

        assertThat(signer.signingKeyId()).isNotEqualTo(oldKid);
        assertThat(SignedJWT.parse(fresh).getHeader().getKeyID()).isEqualTo(signer.signingKeyId());
        verified(old, signer);
        verified(fresh, signer);
        assertThat(JoseIdTokenSigner.open(file, clock, ROTATION).signingKeyId()).as("the rotation was kept").isEqualTo(signer.signingKeyId());

        clock.advance(ROTATION.plusSeconds(1));
        signer.sign(token());
        assertThat(JWKSet.parse(signer.publicKeys()).getKeyByKeyId(oldKid)).as("two rotations later the first key is gone").isNull();
    }
}
