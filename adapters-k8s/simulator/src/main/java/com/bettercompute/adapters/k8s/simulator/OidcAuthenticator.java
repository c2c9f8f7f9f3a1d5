package com.bettercompute.adapters.k8s.simulator;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jose.util.JSONObjectUtils;
import com.nimbusds.jose.util.ResourceRetriever;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URL;
import java.net.UnknownHostException;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * ID tokens of one OpenID Connect issuer a cluster's Identity Service configuration names (a {@code ClientConfig}'s
 * {@code oidc} entry, {@link Rules}), checked as kube-apiserver's OIDC authenticator checks them: RS256 signature
 * against the issuer's JWKS (found through its discovery document on first use; fetched again when a token names a
 * key it does not hold, as after a rotation, at most once per {@link #REFETCH_INTERVAL}; cached for
 * {@link #CACHE_FOR}), {@code iss} exact, {@code aud} the entry's {@code clientID}, {@code exp} and {@code nbf} on the
 * simulator's clock. The user is the entry's {@code userPrefix} and its {@code userClaim}, the groups its
 * {@code groupPrefix} and each of its {@code groupsClaim}.
 */
final class OidcAuthenticator {
    /**
     * One {@code spec.authentication[].oidc} entry of a {@code ClientConfig}, as far as a token check reads it. An absent
     * {@code userClaim} is {@code sub}; an absent {@code userPrefix} is the issuer and {@code #} (none for {@code email}),
     * and {@code -} is none, as kube-apiserver's {@code --oidc-username-prefix}; an absent {@code groupPrefix} is none.
     */
    record Rules(String issuer, String clientId, String userClaim, String userPrefix, String groupsClaim, String groupPrefix) {
        static Rules of(Map<String, Object> oidc) {
            String issuer = Obj.str(oidc, "issuerURI");
            String userClaim = blankToNull(Obj.str(oidc, "userClaim"));
            return new Rules(issuer == null ? null : issuer.replaceAll("/+$", ""), Obj.str(oidc, "clientID"),
                    userClaim == null ? "sub" : userClaim, Obj.str(oidc, "userPrefix"), blankToNull(Obj.str(oidc, "groupsClaim")),
                    Obj.str(oidc, "groupPrefix"));
        }

        String userPrefixOrDefault() {
            if (userPrefix == null || userPrefix.isEmpty()) {
                return "email".equals(userClaim) ? "" : issuer + "#";
            }
            return "-".equals(userPrefix) ? "" : userPrefix;
        }

        private static String blankToNull(String value) {
            return value == null || value.isBlank() ? null : value;
        }
    }

    static final Duration CACHE_FOR = Duration.ofMinutes(5);
    static final Duration REFETCH_INTERVAL = Duration.ofSeconds(30);
    /** How long a failed discovery is not tried again (on the simulator's clock). */
    static final Duration DISCOVERY_RETRY = Duration.ofSeconds(10);
    private static final int TIMEOUT_MILLIS = 3000;
    private static final int SIZE_LIMIT = 256 * 1024;
    private static final Logger LOG = LoggerFactory.getLogger(OidcAuthenticator.class);

    private final String issuer;
    private final Clock clock;
    private final ResourceRetriever retriever = new DefaultResourceRetriever(TIMEOUT_MILLIS, TIMEOUT_MILLIS, SIZE_LIMIT);
    /** Null until the discovery document has answered. */
    private volatile DefaultJWTProcessor<SecurityContext> processor;
    private volatile Instant discoveryFailedAt;

    private OidcAuthenticator(String issuer, Clock clock) {
        this.issuer = issuer;
        this.clock = clock;
    }

    /**
     * Trusts {@code issuer}: https, or http on a loopback address only (Identity Service takes https alone;
     * the embedded platform serves plain http on loopback, where nothing can be listened to in between).
     */
    static OidcAuthenticator trusting(URI issuer, Clock clock) {
        String scheme = issuer.getScheme();
        if (issuer.getHost() == null || !("https".equals(scheme) || "http".equals(scheme))) {
            throw new IllegalArgumentException("the trusted issuer must be an https URL (http on loopback): " + issuer);
        }
        if ("http".equals(scheme) && !loopback(issuer.getHost())) {
            throw new IllegalArgumentException("the trusted issuer must use https unless it is on a loopback address: " + issuer);
        }
        if (issuer.getQuery() != null || issuer.getFragment() != null) {
            throw new IllegalArgumentException("the trusted issuer takes no query or fragment: " + issuer);
        }
        return new OidcAuthenticator(issuer.toString().replaceAll("/+$", ""), clock);
    }

    private static boolean loopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    String issuer() {
        return issuer;
    }

    /** The person the token names, if it is a valid ID token of the issuer under {@code rules}; else null. */
    Caller authenticate(SignedJWT jwt, Rules rules) {
        if (rules.clientId() == null || rules.clientId().isBlank()) {
            return null;
        }
        DefaultJWTProcessor<SecurityContext> keys = processor();
        if (keys == null) {
            return null;
        }
        JWTClaimsSet claims;
        try {
            claims = keys.process(jwt, null);
            new ClockedClaimsVerifier(clock, issuer, Set.of(rules.clientId()), Set.of(rules.userClaim(), "exp", "iat"), false)
                    .verify(claims, null);
        } catch (BadJOSEException e) {
            return null;
        } catch (JOSEException e) {
            LOG.warn("simulated Kubernetes API: the keys of the trusted issuer {} could not be read: {}", issuer, e.getMessage());
            return null;
        }
        List<String> groups = new java.util.ArrayList<>();
        String user;
        try {
            user = claims.getStringClaim(rules.userClaim());
            if (rules.groupsClaim() != null) {
                List<String> claimed = claims.getStringListClaim(rules.groupsClaim());
                String prefix = rules.groupPrefix() == null ? "" : rules.groupPrefix();
                (claimed == null ? List.<String>of() : claimed).forEach(g -> groups.add(prefix + g));
            }
        } catch (ParseException e) {
            return null;
        }
        return user == null || user.isBlank() ? null : Caller.person(rules.userPrefixOrDefault() + user, groups);
    }

    /** The processor holding the issuer's key source, after a first discovery; null while discovery fails. */
    private DefaultJWTProcessor<SecurityContext> processor() {
        DefaultJWTProcessor<SecurityContext> current = processor;
        if (current != null) {
            return current;
        }
        synchronized (this) {
            if (processor != null) {
                return processor;
            }
            Instant failed = discoveryFailedAt;
            if (failed != null && clock.instant().isBefore(failed.plus(DISCOVERY_RETRY))) {
                return null;
            }
            try {
                URL jwks = jwksUri();
                JWKSource<SecurityContext> source = JWKSourceBuilder.<SecurityContext>create(jwks, retriever)
                        .cache(CACHE_FOR.toMillis(), TIMEOUT_MILLIS)
                        .rateLimited(REFETCH_INTERVAL.toMillis())
                        .refreshAheadCache(false).retrying(false).outageTolerant(false)
                        .build();
                DefaultJWTProcessor<SecurityContext> made = new DefaultJWTProcessor<>();
                made.setJWSKeySelector(new JWSVerificationKeySelector<>(JWSAlgorithm.RS256, source));
                // claims are checked on the simulator's clock, per cluster (authenticate)
                made.setJWTClaimsSetVerifier(null);
                processor = made;
                discoveryFailedAt = null;
                return made;
            } catch (IOException | ParseException | IllegalArgumentException e) {
                discoveryFailedAt = clock.instant();
                LOG.warn("simulated Kubernetes API: the discovery document of the trusted issuer {} could not be read: {}", issuer, e.getMessage());
                return null;
            }
        }
    }

    /** {@code jwks_uri} of the issuer's discovery document, whose {@code issuer} must be the one trusted (OIDC Discovery 4.3). */
    private URL jwksUri() throws IOException, ParseException {
        String content = retriever.retrieveResource(URI.create(issuer + "/.well-known/openid-configuration").toURL()).getContent();
        Map<String, Object> document = JSONObjectUtils.parse(content);
        String named = JSONObjectUtils.getString(document, "issuer");
        if (!issuer.equals(named)) {
            throw new IllegalArgumentException("its discovery document names another issuer: " + named);
        }
        URI jwks = JSONObjectUtils.getURI(document, "jwks_uri");
        if (jwks == null) {
            throw new IllegalArgumentException("its discovery document has no jwks_uri");
        }
        return jwks.toURL();
    }
}
