package com.bettercompute.bootstrap;

import com.bettercompute.adapters.http.AdmissionServer;
import com.bettercompute.application.port.AdmissionEndpoints;

import javax.crypto.Mac;
import javax.crypto.SecretKey;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Optional;

/**
 * Each cluster's admission webhook URLs, {@code <base>/admission/<cluster id>/<path token>/validate|mutate}, where
 * the path token is HMAC-SHA256 of the cluster id under the platform's admission key: unguessable, different
 * per cluster, and never stored anywhere but in that cluster's webhook configurations (the key is kept with
 * the CA, owner-only). A call whose token is not its cluster's is answered 404.
 */
public final class PathTokens implements AdmissionEndpoints {
    private final String base;
    private final SecretKey key;
    private final String caPem;

    /** Tokens that check calls; the URLs are known once the server listens ({@link #at}). */
    public PathTokens(SecretKey key, String caPem) {
        this(null, key, caPem);
    }

    private PathTokens(String base, SecretKey key, String caPem) {
        this.base = base == null || !base.endsWith("/") ? base : base.substring(0, base.length() - 1);
        this.key = key;
        this.caPem = caPem;
    }

    /** The same tokens, with the clusters reaching the webhooks at {@code base} ({@code https://host:port}). */
    public PathTokens at(String base) {
        return new PathTokens(base, key, caPem);
    }

    @Override
    public Optional<Webhooks> webhooks(String clusterId) {
        if (base == null) {
            return Optional.empty();
        }
        String prefix = base + "/admission/" + clusterId + "/" + token(clusterId) + "/";
        return Optional.of(new Webhooks(prefix + AdmissionServer.VALIDATE, prefix + AdmissionServer.MUTATE, caPem));
    }

    @Override
    public boolean accepts(String clusterId, String token) {
        return MessageDigest.isEqual(token(clusterId).getBytes(StandardCharsets.US_ASCII), token.getBytes(StandardCharsets.UTF_8));
    }

    String token(String clusterId) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(clusterId.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    @Override
    public String toString() {
        return "PathTokens[" + base + ", key=<redacted>]";
    }
}
