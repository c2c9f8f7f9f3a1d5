package com.bettercompute.adapters.k8s.simulator;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Every simulated cluster as the OIDC issuer of its ServiceAccount tokens, as kube-apiserver is: the issuer
 * is the cluster's own URL ({@code https://127.0.0.1:<port>/clusters/<p>/<l>/<c>}), tokens are RS256 JWTs
 * signed with the server's one ServiceAccount key (kept in {@code identity.json}, so tokens outlive a
 * restart), and the discovery document and JWKS under the issuer let anyone verify a token outside the
 * cluster. One key for all clusters: a token of another cluster is refused by its issuer, not its key.
 */
final class ServiceAccountIssuer {
    private final Clock clock;
    private final RSAKey key;
    private final RSASSASigner signer;
    private final DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
    private final String base;

    /** A token that verified: who it is and the audiences it was accepted for. */
    record Verified(Caller caller, List<String> audiences) {}

    ServiceAccountIssuer(Clock clock, RSAKey key, int port) {
        this.clock = clock;
        this.key = key;
        this.base = "https://127.0.0.1:" + port + "/clusters/";
        try {
            this.signer = new RSASSASigner(key);
        } catch (JOSEException e) {
            throw new IllegalStateException("the ServiceAccount signing key cannot sign", e);
        }
        processor.setJWSKeySelector(new JWSVerificationKeySelector<>(JWSAlgorithm.RS256, new ImmutableJWKSet<>(new JWKSet(key.toPublicJWK()))));
        // The claims are checked per cluster on the simulator's clock (verify), not on the machine's.
        processor.setJWTClaimsSetVerifier(null);
    }

    String issuer(String clusterKey) {
        return base + clusterKey;
    }

    /** Whether the token names one of this server's clusters as its issuer (which one is checked when verifying). */
    boolean issued(String tokenIssuer) {
        return tokenIssuer != null && tokenIssuer.startsWith(base);
    }

    /**
     * A token as TokenRequest makes it: {@code sub} {@code system:serviceaccount:<ns>:<name>}, the audiences
     * asked for (none: the cluster's issuer, which is the API's own audience), expiry, and the
     * {@code kubernetes.io} claim naming the namespace and account (with its uid when known).
     */
    SimulatedKubernetesApis.Minted mint(String clusterKey, String namespace, String account, String uid, List<String> audiences, Duration ttl) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
        Instant expires = now.plus(ttl);
        Map<String, Object> serviceAccount = new LinkedHashMap<>();
        serviceAccount.put("name", account);
        if (uid != null) {
            serviceAccount.put("uid", uid);
        }
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(issuer(clusterKey))
                .subject("system:serviceaccount:" + namespace + ":" + account)
                .audience(audiences.isEmpty() ? List.of(issuer(clusterKey)) : audiences)
                .issueTime(Date.from(now)).notBeforeTime(Date.from(now)).expirationTime(Date.from(expires))
                .jwtID(UUID.randomUUID().toString())
                .claim("kubernetes.io", Map.of("namespace", namespace, "serviceaccount", serviceAccount))
                .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(), claims);
        try {
            jwt.sign(signer);
        } catch (JOSEException e) {
            throw new IllegalStateException("a ServiceAccount token could not be signed", e);
        }
        return new SimulatedKubernetesApis.Minted(jwt.serialize(), expires);
    }

    /**
     * The token's ServiceAccount if it is this cluster's, signed with the key, for one of {@code audiences}
     * and in force on the clock; else null. Whether the account still exists is the cluster's to check.
     */
    Verified verify(SignedJWT jwt, String clusterKey, Set<String> audiences) {
        JWTClaimsSet claims;
        try {
            claims = processor.process(jwt, null);
            // Its own clock signed it: a token is refused the second it expires.
            new ClockedClaimsVerifier(clock, issuer(clusterKey), audiences, Set.of("sub", "exp"), true).verify(claims, null);
        } catch (BadJOSEException | JOSEException e) {
            return null;
        }
        Map<String, Object> kubernetes = Obj.map(claims.getClaim("kubernetes.io"));
        String namespace = Obj.str(kubernetes, "namespace");
        String account = Obj.str(kubernetes, "serviceaccount", "name");
        if (namespace == null || account == null || !claims.getSubject().equals("system:serviceaccount:" + namespace + ":" + account)) {
            return null;
        }
        List<String> accepted = claims.getAudience().stream().filter(audiences::contains).toList();
        return new Verified(Caller.serviceAccount(namespace, account, Obj.str(kubernetes, "serviceaccount", "uid")), accepted);
    }

    /** The discovery document kube-apiserver serves at {@code <issuer>/.well-known/openid-configuration}. */
    Map<String, Object> discovery(String clusterKey) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("issuer", issuer(clusterKey));
        out.put("jwks_uri", issuer(clusterKey) + "/openid/v1/jwks");
        out.put("response_types_supported", List.of("id_token"));
        out.put("subject_types_supported", List.of("public"));
        out.put("id_token_signing_alg_values_supported", List.of("RS256"));
        return out;
    }

    /** The public keys, as a JWK set. */
    String jwks() {
        return new JWKSet(key.toPublicJWK()).toString(true);
    }
}
