package com.bettercompute.adapters.k8s.simulator;

import com.nimbusds.jose.JOSEException;
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
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An OpenID Connect issuer standing in for the platform: its discovery document and JWKS over plain HTTP
 * on loopback (a JDK HTTP server), RSA keys made with Nimbus, ID tokens signed with them. Keys can be
 * added (a rotation); it counts how often its JWKS is read.
 */
public final class TestIssuer implements AutoCloseable {
    private final HttpServer server;
    private final List<RSAKey> keys = new CopyOnWriteArrayList<>();
    final AtomicInteger jwksReads = new AtomicInteger();

    public TestIssuer() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/.well-known/openid-configuration", exchange -> answer(exchange, """
                {"issuer": "%s", "jwks_uri": "%s/keys", "response_types_supported": ["id_token"],
                 "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["RS256"]}
                """.formatted(url(), url())));
        server.createContext("/keys", exchange -> {
            jwksReads.incrementAndGet();
            answer(exchange, new JWKSet(List.<JWK>copyOf(keys)).toString(true));
        });
        server.start();
        keys.add(newKey());
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public URI uri() {
        return URI.create(url());
    }

    /** A new signing key, published from now on: the issuer's rotation. The new key signs what {@link #sign} makes next. */
    RSAKey rotate() {
        RSAKey key = newKey();
        keys.add(0, key);
        return key;
    }

    static RSAKey newKey() {
        try {
            return new RSAKeyGenerator(2048).keyUse(KeyUse.SIGNATURE).algorithm(JWSAlgorithm.RS256).keyIDFromThumbprint(true).generate();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Claims of an ID token from this issuer for the cluster's audience, issued now, in force for 15 minutes. */
    public JWTClaimsSet.Builder idToken(String audience, String subject, List<String> groups, Instant now) {
        return new JWTClaimsSet.Builder().issuer(url()).audience(audience).subject(subject).claim("groups", groups)
                .issueTime(Date.from(now)).expirationTime(Date.from(now.plusSeconds(900)));
    }

    /** Signed with the issuer's current key. */
    public String sign(JWTClaimsSet.Builder claims) {
        return sign(claims, keys.get(0));
    }

    static String sign(JWTClaimsSet.Builder claims, RSAKey key) {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(), claims.build());
        try {
            jwt.sign(new RSASSASigner(key));
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
        return jwt.serialize();
    }

    private static void answer(HttpExchange exchange, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
