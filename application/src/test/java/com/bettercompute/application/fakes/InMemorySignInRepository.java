package com.bettercompute.application.fakes;

import com.bettercompute.application.port.SignInRepository;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** Sign-in grants in memory, keyed by hash as the database keeps them. */
public final class InMemorySignInRepository implements SignInRepository {
    private final Map<String, DeviceGrant> devices = new LinkedHashMap<>();
    private final Map<String, RefreshGrant> refresh = new LinkedHashMap<>();

    @Override
    public synchronized void addDevice(DeviceGrant grant) {
        devices.put(grant.deviceCodeHash(), grant);
    }

    @Override
    public synchronized Optional<DeviceGrant> deviceByCode(String deviceCodeHash) {
        return Optional.ofNullable(devices.get(deviceCodeHash));
    }

    @Override
    public synchronized Optional<DeviceGrant> deviceByUserCode(String userCodeHash) {
        return devices.values().stream().filter(g -> g.userCodeHash().equals(userCodeHash)).findFirst();
    }

    @Override
    public synchronized void polled(String hash, Instant at, int intervalSeconds) {
        DeviceGrant g = devices.get(hash);
        if (g != null) {
            devices.put(hash, new DeviceGrant(g.deviceCodeHash(), g.userCodeHash(), g.clusterId(), g.createdAt(), g.expiresAt(),
                    intervalSeconds, at, g.decision(), g.principalId()));
        }
    }

    @Override
    public synchronized boolean decide(String hash, Decision decision, String principalId) {
        DeviceGrant g = devices.get(hash);
        if (g == null || g.decision() != Decision.PENDING) {
            return false;
        }
        devices.put(hash, new DeviceGrant(g.deviceCodeHash(), g.userCodeHash(), g.clusterId(), g.createdAt(), g.expiresAt(),
                g.intervalSeconds(), g.lastPolledAt(), decision, principalId));
        return true;
    }

    @Override
    public synchronized boolean removeDevice(String hash) {
        return devices.remove(hash) != null;
    }

    @Override
    public synchronized void addRefresh(RefreshGrant grant) {
        refresh.put(grant.tokenHash(), grant);
    }

    @Override
    public synchronized Optional<RefreshGrant> refreshByHash(String tokenHash) {
        return Optional.ofNullable(refresh.get(tokenHash));
    }

    @Override
    public synchronized boolean removeRefresh(String tokenHash) {
        return refresh.remove(tokenHash) != null;
    }

    @Override
    public synchronized int removeStale(Instant devicesExpiredBefore, Instant refreshUnusedSince) {
        int before = devices.size() + refresh.size();
        devices.values().removeIf(g -> g.expiresAt().isBefore(devicesExpiredBefore));
        refresh.values().removeIf(g -> g.lastUsedAt().isBefore(refreshUnusedSince));
        return before - devices.size() - refresh.size();
    }

    /** Every hash kept, for tests that look for a plain code or token. */
    public synchronized String dump() {
        return devices.values() + " " + refresh.values();
    }
}
