package com.bettercompute.application.fakes;

import com.bettercompute.application.port.ClusterConnection;
import com.bettercompute.application.port.ServiceAccountToken;
import com.bettercompute.application.port.TenantClusterClient;
import com.bettercompute.application.port.ProviderException;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Tenant clusters in memory, keyed by endpoint URL: their service accounts (name → bound ClusterRole)
 * and the tokens they minted. Like a real API server it may answer a shorter expiry than asked
 * ({@link #maxTokenLifetime}).
 */
public final class InMemoryTenantClusterClient implements TenantClusterClient {
    /** A token the fake minted, with what it was minted for. */
    public record Minted(String endpointUrl, String serviceAccount, String token, long askedSeconds, String audience) {}

    private final Clock clock;
    private final Map<String, Map<String, String>> accounts = new LinkedHashMap<>();
    private final List<Minted> minted = new ArrayList<>();
    private final List<String> platformTokensSeen = new ArrayList<>();
    private final java.util.Set<String> signInGroups = new java.util.LinkedHashSet<>();
    private final Map<String, IdTokenTrust> trusted = new LinkedHashMap<>();
    private final Deque<ProviderException> failures = new ArrayDeque<>();
    private Duration maxTokenLifetime = Duration.ofDays(2);
    private int sequence;

    public InMemoryTenantClusterClient(Clock clock) {
        this.clock = clock;
    }

    public synchronized void maxTokenLifetime(Duration max) {
        this.maxTokenLifetime = max;
    }

    public synchronized void failNextCall(ProviderException failure) {
        failures.add(failure);
    }

    /** Service account name → ClusterRole, in one cluster. */
    public synchronized Map<String, String> accounts(String endpointUrl) {
        return Map.copyOf(accounts.getOrDefault(endpointUrl, Map.of()));
    }

    public synchronized List<Minted> minted() {
        return List.copyOf(minted);
    }

    public synchronized List<String> platformTokensSeen() {
        return List.copyOf(platformTokensSeen);
    }

    @Override
    public synchronized void ensureServiceAccount(ClusterConnection cluster, String serviceAccount, String clusterRole) {
        enter(cluster);
        accounts.computeIfAbsent(cluster.endpointUrl(), k -> new LinkedHashMap<>()).put(serviceAccount, clusterRole);
    }

    /** The endpoints whose sign-in group bindings were made. */
    public synchronized java.util.Set<String> signInGroupsMade() {
        return java.util.Set.copyOf(signInGroups);
    }

    @Override
    public synchronized void ensureSignInGroups(ClusterConnection cluster) {
        enter(cluster);
        signInGroups.add(cluster.endpointUrl());
    }

    /** What each cluster (by endpoint) was told to trust, the last time. */
    public synchronized Map<String, IdTokenTrust> trusted() {
        return Map.copyOf(trusted);
    }

    @Override
    public synchronized void trustIdTokens(ClusterConnection cluster, IdTokenTrust trust) {
        enter(cluster);
        trusted.put(cluster.endpointUrl(), trust);
    }

    @Override
    public synchronized ServiceAccountToken requestToken(ClusterConnection cluster, String serviceAccount, long expirationSeconds, String audience) {
        enter(cluster);
        if (!accounts.getOrDefault(cluster.endpointUrl(), Map.of()).containsKey(serviceAccount)) {
            throw new ProviderException(ProviderException.Kind.NOT_FOUND, "serviceaccounts \"" + serviceAccount + "\" not found");
        }
        String token = "fake-token-" + (++sequence) + "-" + Long.toHexString(Double.doubleToLongBits(Math.random()));
        minted.add(new Minted(cluster.endpointUrl(), serviceAccount, token, expirationSeconds, audience));
        Duration lifetime = Duration.ofSeconds(expirationSeconds);
        if (lifetime.compareTo(maxTokenLifetime) > 0) {
            lifetime = maxTokenLifetime;
        }
        return new ServiceAccountToken(token, clock.instant().plus(lifetime));
    }

    private void enter(ClusterConnection cluster) {
        platformTokensSeen.add(cluster.platformBearerToken());
        if (!failures.isEmpty()) {
            throw failures.poll();
        }
    }
}
